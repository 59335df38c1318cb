import * as pulumi from "@pulumi/pulumi";
import type { IntegrationRole } from "../client";
import { ownedIntegration, ownedMembership } from "./owners";
import {
  afterRegistration,
  beforeRegistration,
  dynamicType,
  type EveryOutput,
  readById,
  refuseSetPlaces,
  registration,
} from "./resource-options";

/** An integration role as invitations take it and `getIntegrationMembers` returns it: closed, so `owner` fails to compile, not the preview. */
export type IntegrationEntitlementRole = IntegrationRole;

/** The inputs of an {@link IntegrationEntitlement}. */
export interface IntegrationEntitlementArgs {
  /** The integration's UUID. Changing it replaces the resource. */
  integrationId: pulumi.Input<string>;
  /** The workspace user's id, e.g. `alice.id`. Changing it replaces the resource. */
  userId: pulumi.Input<string>;
  /** The entitlement ids the user holds in the integration: a set (order and duplicates do not matter). */
  entitlements: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * The member's role. Left out, the service's is kept (never compared, never written): a new member is invited as
   * `account_collaborator`. Declared, the API cannot change it in place: a change replaces the membership.
   */
  role?: pulumi.Input<IntegrationEntitlementRole>;
  /**
   * At create, take over a membership the user already has (its entitlements become the declared set, unless the
   * `ignoreChanges` option names `entitlements`) instead of failing and changing nothing, the default. Matters only at
   * create; never causes a diff.
   */
  adoptExisting?: pulumi.Input<boolean>;
  /**
   * Destroy removes the membership even when the stack adopted it, or its member was made an owner the program does not
   * declare, or the service's record does not say their role; left out, such a membership is left, with a warning (one
   * whose role is not known fails the destroy instead, nothing sent). Never the integration's last owner (docs/adoption.md).
   */
  deleteOnDestroy?: pulumi.Input<boolean>;
}

/** Every output of an {@link IntegrationEntitlement}, for its `get`. */
const OUTPUTS = {
  integrationId: true,
  userId: true,
  entitlements: true,
  role: true,
  adoptExisting: true,
  email: true,
  status: true,
  lastJobId: true,
  pendingInvitations: true,
  adopted: true,
} satisfies EveryOutput<IntegrationEntitlement>;

/**
 * A user's membership of an integration with exactly the declared entitlements; the id is `<integrationId>/<userId>`.
 * Every write waits for its job. A replacement deletes first (one user has one membership of an integration);
 * `import: "<integrationId>/<userId>"` adopts that membership; {@link IntegrationEntitlement.get} reads one without managing it
 * (docs/pulumi-habits.md).
 */
export class IntegrationEntitlement extends pulumi.CustomResource {
  declare readonly integrationId: pulumi.Output<string>;
  declare readonly userId: pulumi.Output<string>;
  /** The entitlement ids, sorted. */
  declare readonly entitlements: pulumi.Output<string[]>;
  /** The role the member holds: the declared one where the service does not say; `null` when neither does. */
  declare readonly role: pulumi.Output<IntegrationEntitlementRole | null>;
  declare readonly adoptExisting: pulumi.Output<boolean>;
  /** The member's email, as the integration reports it. */
  declare readonly email: pulumi.Output<string | null>;
  /** The member's status in the workspace. */
  declare readonly status: pulumi.Output<string | null>;
  /** The job of the last write this resource made (null when none was needed); see {@link getJobOutput}. */
  declare readonly lastJobId: pulumi.Output<string | null>;
  /**
   * The last write while it may still land (accepted, not seen to finish, or finished with the member not found by a direct
   * read), with its job (null when none is known): the next `up` waits for it, or looks for the member.
   */
  declare readonly pendingInvitations: pulumi.Output<Array<{ userId: string; jobId: string | null }>>;
  /** Whether the stack adopted the membership (it existed before): destroy then leaves it, unless `deleteOnDestroy`. */
  declare readonly adopted: pulumi.Output<boolean>;

  /** The type token the engine sees. */
  static readonly type = dynamicType("IntegrationEntitlement");

  /**
   * Reads the existing membership `id` names, `<integrationId>/<userId>` (in any case, whitespace around it ignored), into a
   * resource the stack does not manage, as a generated provider's `get` does: the engine records it as external (a `read` in a
   * preview), `pulumi refresh` reads it again, and a destroy, or removing it from the program, never removes the membership.
   * Its outputs are the service's: the set, the role, the member's email (`adopted` is false). It declares nothing to the
   * program's checks, so a resource that manages the same membership or integration may stand beside it. A user who is not a
   * member, or an integration there is not, fails the preview and the up, naming the id as given; an id not of that form fails
   * here. There is no `state` argument, as a generated `get` has: the id alone names the membership, so a state could add
   * nothing to the read. The options are those Pulumi's read of an existing record takes (`parent`, `dependsOn`,
   * `additionalSecretOutputs`); `import`, `provider` and those a read does not carry (`protect`, `retainOnDelete`, `aliases`,
   * `ignoreChanges`, ...) are refused, saying why.
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): IntegrationEntitlement {
    return new IntegrationEntitlement(name, undefined, { ...opts, id });
  }

  constructor(name: string, args: IntegrationEntitlementArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal {@link IntegrationEntitlement.get}'s read: `opts.id` names the membership. */
  constructor(name: string, args: undefined, opts: pulumi.CustomResourceOptions);
  constructor(name: string, args: IntegrationEntitlementArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    if (args === undefined) {
      const limit = beforeRegistration();
      try {
        super(IntegrationEntitlement.type, name, ...readById(name, "integration-entitlement", OUTPUTS, opts));
      } catch (error) {
        throw afterRegistration(limit, error);
      }
      afterRegistration(limit);
      return;
    }
    refuseSetPlaces("IntegrationEntitlement", name, opts);
    // This resource, for the owner checks: its integration and its membership are declared by the one resource.
    const owner = {};
    const inputs = {
      integrationId: ownedIntegration(args.integrationId, "IntegrationEntitlement", name, owner),
      userId: ownedMembership(args.integrationId, args.userId, name, owner),
      entitlements: args.entitlements,
      role: args.role,
      adoptExisting: args.adoptExisting,
      deleteOnDestroy: args.deleteOnDestroy,
    };
    const limit = beforeRegistration();
    try {
      super(
        IntegrationEntitlement.type,
        name,
        ...registration(name, "integration-entitlement", inputs, ["adopted", "email", "status", "lastJobId", "pendingInvitations"], opts),
      );
    } catch (error) {
      throw afterRegistration(limit, error);
    }
    afterRegistration(limit);
  }
}
