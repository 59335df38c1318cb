/**
 * The review's memberships: one only a side has, a member's role, the entitlements only a side grants. A member is matched
 * by integration and their user as the users are matched (by the id `access.yaml` records, else by email). One left
 * out (or its integration) is the left-out part's, but a member the workspace holds with no entitlement.
 */
import { emailKey } from "../../client/models";
import { leftOutKey } from "../access-file";
import {
  type AccessDifference,
  difference,
  integrationLeftOut,
  leftOutOf,
  memberValue,
  type Placed,
  SIDE_NAME,
  type Sides,
  UNTOLD,
  untoldWhy,
} from "./differences";

/** The differences of the memberships of both sides. */
export function* membershipDifferences(sides: Sides): Iterable<AccessDifference> {
  // access.yaml's members under the key their workspace's counterpart would have (its user's email there).
  const then = new Map<string, Placed>();
  for (const was of sides.membersThen.values()) {
    const key = sides.keyNow(was);
    if (key !== undefined) then.set(key, was);
  }
  for (const [key, now] of sides.membersNow) {
    const was = then.get(key);
    if (was) yield* memberDifferences(was, now, at(sides, now.integration.id));
    // Recorded as left out (the member, or the whole integration): the left-out part says what access.yaml records.
    else if (
      !leftOutOf(sides, "access.yaml", "membership", who(now, sides.idsNow), now.integration.id) &&
      !integrationLeftOut(sides.leftThen, now.integration.id)
    ) {
      yield onlyOneSide("workspace", now, at(sides, now.integration.id));
    }
  }
  for (const was of sides.membersThen.values()) {
    const key = sides.keyNow(was);
    if (key !== undefined && sides.membersNow.has(key)) continue;
    const where = at(sides, was.integration.id);
    const left = leftOutOf(sides, "workspace", "membership", who(was, sides.idsThen), was.integration.id);
    if (left?.entitlements?.length === 0) {
      // Still a member, with no entitlement: the entitlements access.yaml grants and the workspace does not.
      sides.reported.add(leftOutKey(left));
      const { user, entitlements } = was.member;
      const held = entitlements.join(", ");
      yield difference(
        { ...placed(was, where), kind: "entitlements", side: "access.yaml", accessYaml: held, workspace: "no entitlement", entitlements },
        `access.yaml grants ${user} ${held} in ${where.named}; the workspace does not (a member there with no entitlement)`,
      );
    }
    // Still there, in a form access.yaml cannot declare (the member, or its integration): the left-out part says why.
    else if (!left && !integrationLeftOut(sides.leftNow, was.integration.id)) {
      // A member record whose email could not be read, or, the integration not found by id, one whose id could not be: either may be it.
      const members = sides.untold("membership", was.integration.id);
      const untold = members.length > 0 ? members : sides.integrationUntold(was.integration.id);
      yield untold.length === 0 ? onlyOneSide("access.yaml", was, where) : untoldMember(was, where, untold);
    }
  }
}

/** A member's user, with the id the same side records for them. */
const who = ({ member }: Placed, ids: ReadonlyMap<string, string>) => ({ email: member.user, id: ids.get(emailKey(member.user)) });

/** An integration as a difference names it: `label` for its field, `named` for its sentence (`Sides.label`, `Sides.named`). */
interface Where {
  label: string;
  named: string;
}
const at = (sides: Sides, id: string): Where => ({ label: sides.label(id), named: sides.named(id) });

const placed = ({ integration, member }: Placed, where: Where) => ({
  user: member.user,
  integration: where.label,
  integrationId: integration.id,
});

function onlyOneSide(side: "access.yaml" | "workspace", held: Placed, where: Where): AccessDifference {
  const { user, role, entitlements } = held.member;
  return difference(
    {
      ...placed(held, where),
      kind: "membership",
      side,
      [side === "workspace" ? "workspace" : "accessYaml"]: memberValue(held.member),
      entitlements,
    },
    `${SIDE_NAME[side]} grants ${user} ${entitlements.join(", ")} in ${where.named} as ${role}; ` +
      (side === "workspace" ? "access.yaml does not" : "the workspace does not (not a member there)"),
  );
}

/** A membership of `access.yaml` that a member record of the workspace, its email unread, may be: no absence is claimed. */
function untoldMember(held: Placed, where: Where, untold: Parameters<typeof untoldWhy>[0]): AccessDifference {
  const { user, role, entitlements } = held.member;
  return difference(
    {
      ...placed(held, where),
      kind: "membership",
      side: "access.yaml",
      accessYaml: memberValue(held.member),
      workspace: UNTOLD,
      entitlements,
      untold: true,
    },
    `access.yaml grants ${user} ${entitlements.join(", ")} in ${where.named} as ${role}; whether the workspace does could not be told (${untoldWhy(untold)})`,
  );
}

/** A membership both sides have: the member's role, and the entitlements one side grants and the other does not. */
function* memberDifferences(was: Placed, now: Placed, where: Where): Iterable<AccessDifference> {
  const user = now.member.user;
  if (was.member.role !== now.member.role) {
    yield difference(
      { ...placed(now, where), kind: "member-role", side: "both", accessYaml: was.member.role, workspace: now.member.role },
      `access.yaml makes ${user} ${was.member.role} in ${where.named}; the workspace makes them ${now.member.role}`,
    );
  }
  const sides = [
    ["access.yaml", was.member.entitlements, now.member.entitlements],
    ["workspace", now.member.entitlements, was.member.entitlements],
  ] as const;
  for (const [side, held, other] of sides) {
    const only = held.filter((e) => !other.includes(e));
    if (only.length === 0) continue;
    yield difference(
      {
        ...placed(now, where),
        kind: "entitlements",
        side,
        [side === "workspace" ? "workspace" : "accessYaml"]: only.join(", "),
        entitlements: only,
      },
      `${SIDE_NAME[side]} grants ${user} ${only.join(", ")} in ${where.named}; ${side === "workspace" ? "access.yaml" : "the workspace"} does not`,
    );
  }
}
