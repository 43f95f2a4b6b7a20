import type { BatonConfig } from "../config/index.js";
import type { LoadedState } from "./load-store.js";
import { type SpecsPaths, specsPaths } from "./paths.js";
import type { TodoDocument } from "./todo-document.js";

export interface StoreContext {
  config: BatonConfig;
  paths: SpecsPaths;
}

export function storeContext(config: BatonConfig): StoreContext {
  return { config, paths: specsPaths(config.specsDir) };
}

export interface Snapshot {
  state: LoadedState;
  todo: TodoDocument;
}
