import { describe, expect, it } from "vitest";
import { HOST_NAMES } from "../shared/host-names.js";
import { HOSTS } from "./registry.js";

describe("the hosts' registry", () => {
  it("holds one host per name of the one list, each under its own name, the primary one first", () => {
    expect(HOSTS.map((h) => h.name)).toEqual([...HOST_NAMES]);
    expect(HOSTS.filter((h) => h.primary).map((h) => h.name)).toEqual([HOST_NAMES[0]]);
  });
});
