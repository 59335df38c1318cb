/** A settings problem as data, worded for a stack config key, an environment variable or a flag; never with the API key's value. */
import { ConfigurationError } from "../client/errors";
import { NOT_SHOWN, numberRule, type ValueProblem } from "../client/settings";
import { CONFIG_KEYS, CONFIG_NAMESPACE, type ConfigKey, type SettingsSource, settingName } from "./config-keys";

/** Where a problem's value came from: the environment, when it says so, else where the settings are read. */
const sourceOf = (problem: SettingProblem, wordedFor: SettingsSource): SettingsSource =>
  "from" in problem && problem.from === "env" ? "env" : wordedFor;

/** One problem of the settings, as data; `unknown`'s `projectUnknown`: the key may be the project's own (its name not told). */
export type SettingProblem =
  | (ValueProblem & { readonly from?: "env" })
  | { readonly kind: "unknown"; readonly key: string; readonly meant?: ConfigKey; readonly projectUnknown?: boolean }
  | {
      readonly kind: "no-address";
      readonly key: "workspace" | "host";
      readonly missing: ReadonlyArray<"workspace" | "host">;
      /** The stack config names part of the address, so the environment's is not read: setting it fixes nothing. */
      readonly envIgnored?: true;
    }
  | { readonly kind: "no-stack-key"; readonly key: "apiKey" }
  | { readonly kind: "no-stack-address"; readonly key: "baseUrl" }
  | { readonly kind: "project-name"; readonly key: string; readonly project: string; readonly keys: readonly string[] }
  /** `key` is not set, and `projectKey`, the same setting under the project's own namespace, is (a key set without one). */
  | { readonly kind: "under-project"; readonly key: ConfigKey; readonly projectKey: string };

/** The command (or assignment) that sets `key` to `placeholder` where it is set. */
function setting(key: string, placeholder: string, source: SettingsSource): string {
  const name = settingName(key, source);
  if (source === "stack") return `pulumi config set${key === "apiKey" ? " --secret" : ""} ${name} ${placeholder}`;
  return source === "env" ? `${name}=${placeholder}` : `${name} ${placeholder}`;
}

const VERB: Record<SettingsSource, string> = { stack: "Run:", env: "Set", flag: "Pass" };

/** The environment fallback of a stack config key, for the stack's messages. */
const orEnv = (key: ConfigKey, source: SettingsSource) => (source === "stack" && CONFIG_KEYS[key] ? ` (or set ${CONFIG_KEYS[key]})` : "");

/** A problem in the words of the place the setting is set: its name there, what is wrong, the value seen when it may be shown, and the fix there. */
export function renderProblem(problem: SettingProblem, wordedFor: SettingsSource): string {
  const source = sourceOf(problem, wordedFor);
  const verb = VERB[source];
  switch (problem.kind) {
    case "missing":
      if (problem.key === "apiKey")
        return `No API key for the workspace. ${verb} ${setting("apiKey", "<key>", source)}${orEnv("apiKey", source)}.`;
      return `${settingName(problem.key, source)} is required. ${verb} ${setting(problem.key, "<value>", source)}.`;
    case "range": {
      const seen = problem.seen === undefined ? ` (${NOT_SHOWN})` : `, got ${JSON.stringify(problem.seen)}`;
      const rule = `must be ${numberRule(problem.spec)}${seen}`;
      return `${settingName(problem.key, source)} ${rule}. ${verb} ${setting(problem.key, "<value>", source)}`;
    }
    case "invalid": {
      const seen = problem.seen === undefined ? "" : ` ${JSON.stringify(problem.seen)}`;
      return `${settingName(problem.key, source)}${seen} ${problem.rule}. ${verb} ${setting(problem.key, "<value>", source)}`;
    }
    case "no-stack-key":
      return (
        `No API key in the stack config, which names the workspace's address: the key must come from there too ` +
        `(${CONFIG_KEYS.apiKey} is sent only to the address the environment gives). Run: ${setting("apiKey", "<key>", "stack")}.`
      );
    case "no-stack-address":
      return (
        `No workspace address in the stack config, which holds the API key: the address must come from there too ` +
        `(the environment's ${CONFIG_KEYS.baseUrl}, ${CONFIG_KEYS.workspace} and ${CONFIG_KEYS.host} are used only with its ` +
        `${CONFIG_KEYS.apiKey}). Run: ${setting("baseUrl", "https://<workspace>.<host>/api/v1/", "stack")}, or set ` +
        `${settingName("workspace", "stack")} and ${settingName("host", "stack")}.`
      );
    case "no-address": {
      const missing = problem.missing.map((key) => settingName(key, source)).join(" and ");
      const parts = `${setting("workspace", "<workspace>", source)} and ${setting("host", "<host>", source)}`;
      const url = setting("baseUrl", "https://<workspace>.<host>/api/v1/", source);
      if (problem.envIgnored) {
        const ignored = `${CONFIG_KEYS.baseUrl}, ${CONFIG_KEYS.workspace} and ${CONFIG_KEYS.host}`;
        return (
          `No workspace configured (${missing} missing). ${verb} ${parts}, or ${url}. The stack config names part of the ` +
          `address, so the environment's ${ignored} are not read.`
        );
      }
      return `No workspace configured (${missing} missing). ${verb} ${parts}, or ${url}${orEnv("baseUrl", source)}.`;
    }
    case "unknown": {
      const hint = problem.meant
        ? `did you mean \`${settingName(problem.meant, "stack")}\`? Run: pulumi config rm ${problem.key} and ${setting(problem.meant, "<value>", "stack")}`
        : problem.projectUnknown
          ? `the settings are ${Object.keys(CONFIG_KEYS).join(", ")}. If your project is named ${CONFIG_NAMESPACE}, this key is its own: ` +
            `rename the project (\`name:\` in Pulumi.yaml) instead. Otherwise run: pulumi config rm ${problem.key}`
          : `the settings are ${Object.keys(CONFIG_KEYS).join(", ")}. Run: pulumi config rm ${problem.key}`;
      return `Unknown setting \`${problem.key}\`: ${hint}`;
    }
    case "under-project": {
      const own = problem.projectKey.slice(problem.projectKey.indexOf(":") + 1);
      // Never `config rm` alone: the key may be the project's own (another service's key), which the fix must not delete.
      return (
        `${settingName(problem.key, "stack")} is not set, but \`${problem.projectKey}\` is: a key set without a namespace is the ` +
        `project's own, and the package reads its settings under ${CONFIG_NAMESPACE}: only. Run: ` +
        `${setting(problem.key, problem.key === "apiKey" ? "<key>" : "<value>", "stack")} (and, if \`${problem.projectKey}\` was ` +
        `meant for this package, pulumi config rm ${own})`
      );
    }
    case "project-name":
      return (
        `The project is named "${problem.project}", which is also the namespace of this package's settings, so its own config ` +
        `(${problem.keys.map((key) => `\`${key}\``).join(", ")}) cannot be told from settings of the package, which reads none of that name. ` +
        `Rename the project (\`name:\` in Pulumi.yaml, e.g. ${problem.project}-infra) and set its own keys under the new name ` +
        `(pulumi config set <new-name>:${problem.keys[0]?.slice(CONFIG_NAMESPACE.length + 1) ?? "<key>"} <value>); ` +
        `the package's settings stay under ${CONFIG_NAMESPACE}:.`
      );
  }
}

/** A {@link ConfigurationError} for the first problem, worded for `source`, naming its key where it is set. */
export function settingsError(problem: SettingProblem, wordedFor: SettingsSource): ConfigurationError {
  const source = sourceOf(problem, wordedFor);
  const setting = problem.kind === "unknown" || problem.kind === "project-name" ? problem.key : settingName(problem.key, source);
  return new ConfigurationError(renderProblem(problem, source), setting);
}
