/**
 * The rooms of src/ and what may import what (docs/architecture.md). Run by `npm run lint`.
 * Rules are on direct imports; a room's whole closure stays clean because every room obeys them.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "program-not-to-host",
      comment:
        "What the user's program runs (src/program: the resource classes, getJob, the lookups) never loads what the provider host runs: the batcher, the caches, the context.",
      severity: "error",
      from: { path: "^src/program/" },
      to: { path: "^src/host/" },
    },
    {
      name: "host-not-to-program",
      comment: "The provider host (src/host) never loads the user's program's room: what both need is in src/shared.",
      severity: "error",
      from: { path: "^src/host/" },
      to: { path: "^src/program/" },
    },
    {
      name: "shared-stays-shared",
      comment: "src/shared is what both processes use: it imports neither the program's room nor the host's.",
      severity: "error",
      from: { path: "^src/shared/" },
      to: { path: "^src/(program|host|provider|export)/" },
    },
    {
      name: "client-knows-no-pulumi",
      comment: "The client speaks HTTP to one workspace and knows nothing of Pulumi or of the provider built on it.",
      severity: "error",
      from: { path: "^src/client/" },
      to: { path: ["@pulumi", "^src/(program|host|shared|provider|export|emulator)/"] },
    },
    {
      name: "emulator-not-to-client",
      comment: "The emulator is built from the contract, never from the client: the two must be able to disagree.",
      severity: "error",
      from: { path: "^src/emulator/" },
      to: { path: "^src/(client|program|host|shared|provider|export)/" },
    },
    {
      name: "fleet-drives-the-cli",
      comment: "The fleet command drives stacks through the pulumi CLI: it never loads the program's room or the provider host's.",
      severity: "error",
      from: { path: "^src/fleet/" },
      to: { path: "^src/(program|host|provider|export)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(dist|test)/" },
  },
};
