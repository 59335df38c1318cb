import { expect, it } from "vitest";
import { x } from "../src/index";
it("works", () => expect(x).toBe(1));
