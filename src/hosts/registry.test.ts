import { describe, expect, it } from "vitest";
import { HOST_SETTINGS_FILES } from "../shared/baton-paths.js";
import { HOST_NAMES } from "../shared/host-names.js";
import { HOSTS } from "./registry.js";

describe("the hosts' registry", () => {
  it("holds one host per name of the one list, each under its own name, the primary one first", () => {
    expect(HOSTS.map((h) => h.name)).toEqual([...HOST_NAMES]);
    expect(HOSTS.filter((h) => h.primary).map((h) => h.name)).toEqual([HOST_NAMES[0]]);
  });
});

describe("what Baton guards of each host", () => {
  it("every file or folder a host reads its settings, hooks or plugins from is one Baton's sandboxes, hooks and GATE OUT guard", () => {
    const guarded = new Set<string>(HOST_SETTINGS_FILES);
    const read = HOSTS.flatMap((h) => [
      h.installer.settingsFile,
      ...(h.lintHost?.settingsFiles ?? []),
      ...(h.lintHost?.pluginDirs ?? []).map((dir) => `${h.lintHost?.tree}/${dir}`),
    ]);
    expect(read.filter((path) => !guarded.has(path))).toEqual([]);
  });
});
