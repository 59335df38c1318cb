import * as pulumi from "@pulumi/pulumi";

/** Pulumi's mocks for a new program (project `p`, stack `s`), recording the inputs each resource registers, by name. */
export async function recordedInputs(): Promise<Map<string, Record<string, unknown>>> {
  const inputs = new Map<string, Record<string, unknown>>();
  await pulumi.runtime.setMocks(
    {
      newResource: (a) => {
        inputs.set(a.name, a.inputs);
        return { id: `${a.name}-id`, state: a.inputs };
      },
      call: (a) => a.inputs,
    },
    "p",
    "s",
    false,
  );
  return inputs;
}
