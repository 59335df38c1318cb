/**
 * The dynamic provider of {@link User}, loaded by name in the dynamic-provider host
 * (`pulumi-workspace-access/provider/user`). Which HTTP call backs each operation:
 *
 * | operation | request |
 * |---|---|
 * | check, diff | none: inputs are validated and compared locally |
 * | create | `POST /users` (409 with `adoptExisting`: find by email, then `PUT /users/{id}`) |
 * | read | `GET /users/{id}`, or one `GET /users` list shared by the reads of a refresh |
 * | update | `PUT /users/{id}` with every writable attribute |
 * | delete | `DELETE /users/{id}`; 404 means already gone |
 */
import type * as pulumi from "@pulumi/pulumi";
import { ConflictError, sameEmail, unlessNotFound, type User, type UserAttributes } from "../client";
import { claim, isClaimed } from "./claims";
import { DEFAULT_USER_ROLE, defined, type UserInputs, userInputs, validate } from "./inputs";
import { configure, connection, settingsFailures, withHints, withWrite } from "./provider-runtime";
import { isUnknown } from "./unknown";

/** What a {@link User} stores: its inputs with defaults, plus what the service computes. */
export interface UserOutputs extends UserInputs {
  status: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

type Props = Record<string, unknown>;

/** Inputs with defaults applied; values the preview does not know yet are kept as they are. */
function normalise(news: Props): UserInputs {
  return defined({
    email: news.email,
    firstName: news.firstName,
    lastName: news.lastName,
    role: news.role ?? DEFAULT_USER_ROLE,
    isGuest: news.isGuest ?? false,
    adoptExisting: news.adoptExisting ?? false,
  }) as UserInputs;
}

function attributes(inputs: UserInputs): UserAttributes {
  return {
    email: inputs.email,
    firstName: inputs.firstName,
    lastName: inputs.lastName,
    role: inputs.role,
    isGuest: inputs.isGuest,
  };
}

/** Outputs from what the service said; the declared email's spelling is kept when it matches. */
function outputs(user: User, declared: { email?: unknown; adoptExisting?: unknown }): UserOutputs {
  const email = typeof declared.email === "string" && sameEmail(declared.email, user.email) ? declared.email : user.email;
  return {
    email,
    firstName: user.firstName,
    lastName: user.lastName,
    role: user.role,
    isGuest: user.isGuest,
    adoptExisting: declared.adoptExisting === true,
    status: user.status,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
  };
}

/** The fields `diff` compares, each with how to compare it. */
const COMPARED: Array<[keyof UserInputs, (a: unknown, b: unknown) => boolean]> = [
  ["email", (a, b) => typeof a === "string" && typeof b === "string" && sameEmail(a, b)],
  ["firstName", (a, b) => a === b],
  ["lastName", (a, b) => a === b],
  ["role", (a, b) => (a ?? DEFAULT_USER_ROLE) === (b ?? DEFAULT_USER_ROLE)],
  ["isGuest", (a, b) => (a ?? false) === (b ?? false)],
];

/** The properties whose values differ (a value not known yet counts as a change). */
export function changedUserProperties(olds: Props, news: Props): string[] {
  return COMPARED.filter(([key, same]) => isUnknown(news[key]) || !same(olds[key], news[key])).map(([key]) => key);
}

export const provider: pulumi.dynamic.ResourceProvider<Props, UserOutputs> = {
  configure,

  async check(_olds: Props, news: Props): Promise<pulumi.dynamic.CheckResult<Props>> {
    return { inputs: { ...normalise(news) }, failures: [...settingsFailures(), ...validate(userInputs, news)] };
  },

  async diff(_id: string, olds: UserOutputs, news: Props): Promise<pulumi.dynamic.DiffResult> {
    // None of the user's fields needs a replacement: PUT updates all of them.
    return { changes: changedUserProperties(olds as unknown as Props, news).length > 0, replaces: [] };
  },

  async create(news: Props): Promise<pulumi.dynamic.CreateResult<UserOutputs>> {
    const inputs = normalise(news);
    return withWrite(async () => {
      const { client } = connection();
      let user: User;
      try {
        user = await client.users.create(attributes(inputs));
      } catch (error) {
        if (!ConflictError.isInstance(error)) throw error;
        const existing = await client.users.findByEmail(inputs.email);
        if (!inputs.adoptExisting || !existing) {
          error.message += ` A user with the email ${inputs.email} already exists${existing ? ` (id ${existing.id})` : ""}. To manage that user with this resource, set adoptExisting: true.`;
          throw error;
        }
        user = await client.users.replace(existing.id, attributes(inputs));
        claim(`user:${user.id}`);
      }
      return { id: user.id, outs: outputs(user, inputs) };
    });
  },

  async read(id: string, props?: UserOutputs): Promise<pulumi.dynamic.ReadResult<UserOutputs>> {
    return withHints(async () => {
      const user = await connection().cache.user(id);
      if (!user) return { id: "", props: {} as UserOutputs };
      const outs = outputs(user, props ?? {});
      const { status: _s, createdAt: _c, updatedAt: _u, ...inputs } = outs;
      return { id: user.id, props: outs, inputs: inputs as UserOutputs };
    });
  },

  async update(id: string, _olds: UserOutputs, news: Props): Promise<pulumi.dynamic.UpdateResult<UserOutputs>> {
    const inputs = normalise(news);
    return withWrite(async () => {
      const user = await connection().client.users.replace(id, attributes(inputs));
      return { outs: outputs(user, inputs) };
    });
  },

  async delete(id: string): Promise<void> {
    // A replacement of this resource took the same user over in this deployment: keep it.
    if (isClaimed(`user:${id}`)) return;
    await withWrite(async () => {
      // Already gone (404) counts as done.
      await unlessNotFound(connection().client.users.delete(id));
    });
  },
};
