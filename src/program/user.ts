import * as pulumi from "@pulumi/pulumi";
import type { KNOWN_USER_ROLES } from "../client";
import { SECRET_EMAIL } from "../shared/input-constants";
import { ownedEmail } from "./owners";
import { warnIfUnknownRole } from "./program-checks";
import { afterRegistration, beforeRegistration, dynamicType, type EveryOutput, readById, registration } from "./resource-options";

/** A workspace role: a documented one, or any other string, sent as is with a warning (`string & {}` keeps editors completing the known ones). */
export type UserRole = (typeof KNOWN_USER_ROLES)[number] | (string & {});

/** The inputs of a {@link User}. */
export interface UserArgs {
  /** The user's email; required, compared case-insensitively. */
  email: pulumi.Input<string>;
  /** Required, not empty. */
  firstName: pulumi.Input<string>;
  /** Required, not empty. */
  lastName: pulumi.Input<string>;
  /** Workspace role. Left out, the service's value is kept and never causes a diff; a new user gets `workspace_login_only`. */
  role?: pulumi.Input<UserRole>;
  /** Whether the user is a guest. Left out, the service's value is kept; a new user is not one. */
  isGuest?: pulumi.Input<boolean>;
  /**
   * On create, take over an existing user with this email instead of failing: only the declared attributes are set,
   * and a user is created only when nobody has the email. Matters only at create; never causes a diff.
   */
  adoptExisting?: pulumi.Input<boolean>;
  /**
   * Destroy deletes the user even when the stack adopted it, or when it is a workspace owner (left out, such a user is
   * left, with a warning). A user the stack created is deleted either way. See docs/adoption.md.
   */
  deleteOnDestroy?: pulumi.Input<boolean>;
}

/** Every output of a {@link User}, for its `get`. */
const OUTPUTS = {
  email: true,
  firstName: true,
  lastName: true,
  role: true,
  isGuest: true,
  adoptExisting: true,
  status: true,
  createdAt: true,
  updatedAt: true,
  managedAttributes: true,
  adopted: true,
} satisfies EveryOutput<User>;

/**
 * A workspace user; the id is its UUID. Every change is an update in place (`PUT`); a forced replacement deletes
 * first (two users cannot share an email). `import: "<id>"` adopts that user; {@link User.get} reads one without managing it
 * (docs/pulumi-habits.md).
 *
 * ```ts
 * const alice = new wa.User("alice", { email: "alice@example.com", firstName: "Alice", lastName: "Doe" });
 * ```
 */
export class User extends pulumi.CustomResource {
  declare readonly email: pulumi.Output<string>;
  declare readonly firstName: pulumi.Output<string>;
  declare readonly lastName: pulumi.Output<string>;
  /**
   * The service's role: the declared one, or the one it has when the program leaves it out; `null` when the service reports
   * none for the user.
   */
  declare readonly role: pulumi.Output<UserRole | null>;
  /**
   * The service's guest flag: the declared one, or the one it has when the program leaves it out; `null` when the service
   * leaves the flag out (a service may leave out `false`: a user who is not a guest).
   */
  declare readonly isGuest: pulumi.Output<boolean | null>;
  declare readonly adoptExisting: pulumi.Output<boolean>;
  /** `live`, `pending` (invited, not signed in yet) or `disabled`. */
  declare readonly status: pulumi.Output<string | null>;
  declare readonly createdAt: pulumi.Output<string | null>;
  declare readonly updatedAt: pulumi.Output<string | null>;
  /** Which of `role` and `isGuest` the program declares (and so manages); the others are the service's. */
  declare readonly managedAttributes: pulumi.Output<string[]>;
  /** Whether the stack adopted the user (it existed before): destroy then leaves it, unless `deleteOnDestroy`. */
  declare readonly adopted: pulumi.Output<boolean>;

  /** The type token the engine sees. */
  static readonly type = dynamicType("User");

  /**
   * Reads the existing user `id` names (its UUID, in any case, whitespace around it ignored) into a resource the stack does
   * not manage, as a generated provider's `get` does: the engine records it as external (a `read` in a preview), `pulumi
   * refresh` reads it again, and a destroy, or removing it from the program, never deletes the user. Its outputs are the
   * service's (`adopted` is false: the stack neither created nor adopted it). It declares nothing to the program's checks, so
   * a `User` that manages the same user may stand beside it. A user not there fails the preview and the up, naming the id.
   * There is no `state` argument, as a generated `get` has: the id alone names the user, so a state could add nothing to the
   * read. The options are those Pulumi's read of an existing record takes (`parent`, `dependsOn`, `additionalSecretOutputs`);
   * `import`, `provider` and those a read does not carry (`protect`, `retainOnDelete`, `aliases`, `ignoreChanges`, ...) are
   * refused, saying why.
   *
   * ```ts
   * const grace = wa.User.get("grace", "6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5f02");
   * export const graceEmail = grace.email;
   * ```
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): User {
    return new User(name, undefined, { ...opts, id });
  }

  constructor(name: string, args: UserArgs, opts?: pulumi.CustomResourceOptions);
  /** @internal {@link User.get}'s read: `opts.id` names the user. */
  constructor(name: string, args: undefined, opts: pulumi.CustomResourceOptions);
  constructor(name: string, args: UserArgs | undefined, opts?: pulumi.CustomResourceOptions) {
    if (args === undefined) {
      const limit = beforeRegistration();
      try {
        super(User.type, name, ...readById(name, "user", OUTPUTS, opts));
      } catch (error) {
        throw afterRegistration(limit, error);
      }
      afterRegistration(limit);
      return;
    }
    const email = pulumi.output(args.email);
    const inputs = {
      email: ownedEmail(email, name, {}),
      firstName: args.firstName,
      lastName: args.lastName,
      role: args.role,
      isGuest: args.isGuest,
      adoptExisting: args.adoptExisting,
      deleteOnDestroy: args.deleteOnDestroy,
      // Whether the email is a secret (known in a preview, whatever is unknown): the provider cannot see it, and then names
      // the email in none of its messages.
      [SECRET_EMAIL]: pulumi.output(pulumi.isSecret(email)).apply((secret) => (secret ? true : undefined)),
    };
    const limit = beforeRegistration();
    try {
      super(
        User.type,
        name,
        // `unapplied` (digests of declared values an update left unsent) is encrypted: a digest of a low-entropy secret (an
        // email, a name) is recovered by guessing, and the engine marks secret only the outputs named as a secret input.
        ...registration(name, "user", inputs, ["adopted", "status", "createdAt", "updatedAt", "managedAttributes"], opts, ["unapplied"]),
      );
    } catch (error) {
      throw afterRegistration(limit, error);
    }
    afterRegistration(limit);
    warnIfUnknownRole(args.role, this);
  }
}
