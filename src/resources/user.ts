import * as pulumi from "@pulumi/pulumi";
import type { KNOWN_USER_ROLES } from "../client";
import { warnIfPlaintextApiKey, warnIfUnknownRole } from "./program-checks";
import { dynamicType, serializedProvider } from "./serialized-provider";

/**
 * A workspace role: one the service documents (editors complete them), or any other string, which
 * is sent as is with a warning (`string & {}` keeps the known ones from collapsing into `string`).
 */
export type UserRole = (typeof KNOWN_USER_ROLES)[number] | (string & {});

/** The inputs of a {@link User}. */
export interface UserArgs {
  /** The user's email; required, compared case-insensitively. */
  email: pulumi.Input<string>;
  /** Required, not empty. */
  firstName: pulumi.Input<string>;
  /** Required, not empty. */
  lastName: pulumi.Input<string>;
  /** Workspace role; default `workspace_login_only`. An unknown role warns, it does not fail. */
  role?: pulumi.Input<UserRole>;
  /** Whether the user is a guest; default `false`. */
  isGuest?: pulumi.Input<boolean>;
  /**
   * On create, take over an existing user with this email (and set the declared attributes)
   * instead of failing on 409. Matters only at create; never causes a diff.
   */
  adoptExisting?: pulumi.Input<boolean>;
}

/**
 * A workspace user. The id is the user's UUID. Every change is an update in place (`PUT`);
 * nothing replaces a user.
 *
 * ```ts
 * const alice = new wa.User("alice", { email: "alice@example.com", firstName: "Alice", lastName: "Doe" });
 * ```
 */
export class User extends pulumi.CustomResource {
  declare readonly email: pulumi.Output<string>;
  declare readonly firstName: pulumi.Output<string>;
  declare readonly lastName: pulumi.Output<string>;
  declare readonly role: pulumi.Output<UserRole>;
  declare readonly isGuest: pulumi.Output<boolean>;
  declare readonly adoptExisting: pulumi.Output<boolean>;
  /** `live`, `pending` (invited, not signed in yet) or `disabled`. */
  declare readonly status: pulumi.Output<string | null>;
  declare readonly createdAt: pulumi.Output<string | null>;
  declare readonly updatedAt: pulumi.Output<string | null>;

  /** The type token the engine sees. */
  static readonly type = dynamicType("User");

  constructor(name: string, args: UserArgs, opts?: pulumi.CustomResourceOptions) {
    warnIfPlaintextApiKey();
    const props = {
      email: args.email,
      firstName: args.firstName,
      lastName: args.lastName,
      role: args.role,
      isGuest: args.isGuest,
      adoptExisting: args.adoptExisting,
      status: undefined,
      createdAt: undefined,
      updatedAt: undefined,
      __provider: serializedProvider("user"),
    };
    super(User.type, name, props, opts);
    warnIfUnknownRole(args.role, this);
  }
}
