import * as pulumi from "@pulumi/pulumi";
import { ownedIntegration } from "./owners";
import type { IntegrationEntitlementRole } from "./integration-entitlement";
import {
  afterRegistration,
  beforeRegistration,
  dynamicType,
  type EveryOutput,
  readById,
  refuseSetPlaces,
  registration,
} from "./resource-options";
import type { IntegrationMemberState, UnmanagedIntegrationMember } from "../shared/member-state";

/** One member an {@link IntegrationMembers} declares. */
export interface IntegrationMemberArgs {
  /** The workspace user's id, e.g. `alice.id`. */
  userId: pulumi.Input<string>;
  /** The entitlement ids the user holds in the integration: a set (order and duplicates do not matter). */
  entitlements: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Left out, not managed: a new member is invited as `account_collaborator`, an existing one keeps theirs. Declared, a
   * change removes the member and invites them again with the new role (the API cannot change a role in place).
   */
  role?: pulumi.Input<IntegrationEntitlementRole>;
}

/** The inputs of an {@link IntegrationMembers}. */
export interface IntegrationMembersArgs {
  /** The integration's UUID. Changing it replaces the resource. */
  integrationId: pulumi.Input<string>;
  /** Every member this resource manages (order does not matter; a user at most once). */
  members: pulumi.Input<pulumi.Input<IntegrationMemberArgs>[]>;
  /**
   * Default false: members the program does not list are left alone and reported in `unmanagedMembers`. True: those
   * listed there appear in the plan and are removed on `up` (one who joined since, by the next `up`), never the last owner.
   */
  removeUnmanaged?: pulumi.Input<boolean>;
  /** Destroy removes adopted members too (members before this resource managed them); left out, they stay, with a warning. */
  deleteOnDestroy?: pulumi.Input<boolean>;
}

/** Every output of an {@link IntegrationMembers}, for its `get`. */
const OUTPUTS = {
  integrationId: true,
  members: true,
  removeUnmanaged: true,
  unmanagedMembers: true,
  pendingInvitations: true,
  declaredRoles: true,
  declaredOwners: true,
  adoptedMembers: true,
} satisfies EveryOutput<IntegrationMembers>;

/**
 * The whole member set of one integration, each declared member with exactly the declared entitlements; the id is
 * the integration id. Invitations go in batches (one request and job for up to 100 of one role and set), each changed
 * member is one `PATCH`, every write waits for its job. Delete removes the managed members, not the adopted ones
 * (unless `deleteOnDestroy`). No `IntegrationEntitlement` of the program may manage the same integration. A replacement
 * deletes first; `import: "<integrationId>"` adopts its declared members; {@link IntegrationMembers.get} reads the set without
 * managing it. See docs/integration-members.md.
 */
export class IntegrationMembers extends pulumi.CustomResource {
  declare readonly integrationId: pulumi.Output<string>;
  /** The managed members as the service has them, by user id. */
  declare readonly members: pulumi.Output<IntegrationMemberState[]>;
  declare readonly removeUnmanaged: pulumi.Output<boolean>;
  /** Members of the integration the program does not list, as of the last refresh or `up`. */
  declare readonly unmanagedMembers: pulumi.Output<UnmanagedIntegrationMember[]>;
  /**
   * Invitations not seen to finish (a timeout), or finished with the member not found by a direct read, each with its job:
   * the next `up` waits for it and reads the member before inviting them again.
   */
  declare readonly pendingInvitations: pulumi.Output<Array<{ userId: string; jobId: string | null }>>;
  /** The user ids of the members whose `role` the program declares; the others keep the service's role (shown in `members`). */
  declare readonly declaredRoles: pulumi.Output<string[]>;
  /** The user ids of the members the program declares owners: a removal or destroy leaves any other member made an owner since. */
  declare readonly declaredOwners: pulumi.Output<string[]>;
  /** The user ids of the managed members who were members before this resource managed them: destroy leaves them, unless `deleteOnDestroy`. */
  declare readonly adoptedMembers: pulumi.Output<string[]>;

  /** The type token the engine sees. */
  static readonly type = dynamicType("IntegrationMembers");

  /**
   * Reads the member set of the existing integration `id` names (in any case, whitespace around it ignored) into a resource
   * the stack does not manage, as a generated provider's `get` does: the engine records it as external (a `read` in a
   * preview), `pulumi refresh` reads it again, and a destroy, or removing it from the program, never removes a member. Every
   * member is in `members`, as the service has them (`unmanagedMembers` is empty), read from listings that agree (a member a
   * shifting page skipped is not left out; listings that never agree fail the read). It declares nothing to the program's
   * checks, so a resource that manages the same integration may stand beside it. An integration there is not fails the preview
   * and the up, naming the id. There is no `state` argument, as a generated `get` has: the id alone names the set, so a state
   * could add nothing to the read. The options are those Pulumi's read of an existing record takes (`parent`, `dependsOn`,
   * `additionalSecretOutputs`); `import`, `provider` and those a read does not carry (`protect`, `retainOnDelete`, `aliases`,
   * `ignoreChanges`, ...) are refused, saying why.
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): IntegrationMembers {
    return new IntegrationMembers(name, undefined, { ...opts, id });
  }

  constructor(name: string, args: IntegrationMembersArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal {@link IntegrationMembers.get}'s read: `opts.id` names the integration. */
  constructor(name: string, args: undefined, opts: pulumi.CustomResourceOptions);
  constructor(name: string, args: IntegrationMembersArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    if (args === undefined) {
      const limit = beforeRegistration();
      try {
        super(IntegrationMembers.type, name, ...readById(name, "integration-members", OUTPUTS, opts));
      } catch (error) {
        throw afterRegistration(limit, error);
      }
      afterRegistration(limit);
      return;
    }
    refuseSetPlaces("IntegrationMembers", name, opts);
    const inputs = {
      integrationId: ownedIntegration(args.integrationId, "IntegrationMembers", name, {}),
      members: args.members,
      removeUnmanaged: args.removeUnmanaged,
      deleteOnDestroy: args.deleteOnDestroy,
    };
    const limit = beforeRegistration();
    try {
      super(
        IntegrationMembers.type,
        name,
        ...registration(
          name,
          "integration-members",
          inputs,
          ["adoptedMembers", "unmanagedMembers", "pendingInvitations", "declaredRoles", "declaredOwners"],
          opts,
        ),
      );
    } catch (error) {
      throw afterRegistration(limit, error);
    }
    afterRegistration(limit);
  }
}
