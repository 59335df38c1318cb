/**
 * The workspace a resource's state was written in (`__workspace`, a hidden output). An id names a record of one workspace:
 * used against another (a stack's config pointed at staging instead of prod, a copied stack file), a refresh reads each
 * resource as gone and drops it from the state, leaving the first workspace's people unmanaged, an up creates everything
 * anew there, and a destroy deletes whatever the id names there. So `providerOf` records the workspace at each create,
 * import, update and refresh, and refuses a diff, refresh, update or delete of a state recording another one, before any
 * request. A state written before the workspace was recorded is taken as it is, and records it at its next write or refresh.
 */
import { ConfigurationError } from "../client/errors";
import type { AddressParts } from "../client/settings";
import { CONFIG_NAMESPACE } from "../shared/config-keys";
import { WORKSPACE } from "../shared/input-constants";
import type { settingNamesOf } from "../shared/settings";
import { hiddenOf } from "./hidden-inputs";

/**
 * A base URL in the one form a state records and compares: scheme and host in lower case, the default port dropped (the
 * URL parser's own form), the path kept as given, ending in exactly one `/`.
 */
export function workspaceAddress(address: string | URL): string {
  const url = new URL(address);
  url.pathname = url.pathname.replace(/\/*$/, "/");
  return url.href;
}

/** The workspace a state records (`undefined`: none, a state written before it was), in the one form when it reads as a URL. */
export function recordedWorkspace(state: unknown): string | undefined {
  const recorded = hiddenOf(state, WORKSPACE);
  if (typeof recorded !== "string") return undefined;
  try {
    return workspaceAddress(recorded);
  } catch {
    // Edited by hand into no URL: still another workspace than any the settings can name.
    return recorded;
  }
}

/** How the settings in force name the address: the setting giving it whole, and the two it was built from, if it was. */
export type AddressNames = ReturnType<typeof settingNamesOf>;

/**
 * Throws, before any request, when `state` records another workspace than `here` (the settings' address; `undefined`: they
 * are not usable, and the operation's first request fails on them). `what`: the resource, as its type and id.
 */
export function sameWorkspace(state: unknown, here: string | undefined, what: string, names: () => AddressNames): void {
  const recorded = recordedWorkspace(state);
  if (recorded === undefined || here === undefined || recorded === here) return;
  const { settingName, addressBuiltFrom } = names();
  const whole = settingName("baseUrl") ?? `${CONFIG_NAMESPACE}:baseUrl`;
  const pointBack = pointingBack(recorded, here, whole, addressBuiltFrom);
  const setting = addressBuiltFrom ? `${addressBuiltFrom.workspace} and ${addressBuiltFrom.host}` : whole;
  throw new ConfigurationError(
    `${what} was written in the workspace at ${recorded}, but the settings (${setting}) now name ${here}. ` +
      "Nothing was sent: its id names a record of the first workspace. Used against the other, a refresh would drop the " +
      "resource from the state as gone, an up would create it anew there, and a destroy would delete whatever the id names there. " +
      `To manage the first workspace again, point the stack back: ${pointBack.commands.join(", then ")}. ` +
      "If its records are gone with that workspace (an emulator restarted, a workspace deleted), remove the resource from the " +
      "state with pulumi state delete <urn> (pulumi stack --show-urns lists them), or manage the other workspace from a new stack " +
      "(pulumi stack init).",
    pointBack.setting,
  );
}

/**
 * What sets the address back to `recorded`: the workspace or the host, or both, where the address in force was built from them
 * and `recorded` has that form, else the setting giving it whole. A stack config key is set by `pulumi config set`,
 * an environment variable in the shell.
 */
function pointingBack(
  recorded: string,
  here: string,
  whole: string,
  built: AddressParts | undefined,
): { commands: string[]; setting: string } {
  const set = (name: string, value: string) =>
    name.startsWith(`${CONFIG_NAMESPACE}:`) ? `pulumi config set ${name} ${value}` : `set the environment variable ${name}=${value}`;
  const parts = (address: string) => /^https:\/\/([a-z0-9-]+)\.([^/]+)\/api\/v1\/$/.exec(address);
  const [, workspace, host] = parts(recorded) ?? [];
  if (built && workspace !== undefined && host !== undefined) {
    // Built from them too, the address in force differs from `recorded` in one of the two at least.
    const [, hereWorkspace, hereHost] = parts(here) ?? [];
    const changed = [
      ...(hereWorkspace === workspace ? [] : [[built.workspace, workspace] as const]),
      ...(hereHost === host ? [] : [[built.host, host] as const]),
    ];
    return { commands: changed.map(([name, value]) => set(name, value)), setting: changed[0]?.[0] ?? built.workspace };
  }
  return { commands: [set(whole, recorded)], setting: whole };
}
