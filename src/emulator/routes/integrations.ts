import { entitlementRecord, integrationRecord } from "../records";
import { scopesOf } from "../scopes";
import { listPage, PAGE_QUERY, param, type Route } from "./context";
import { base, integrationOf, memberOf, userRecordOf } from "./integration-rows";
import { addRemoveEntitlements, invite, removeMember, setEntitlements } from "./integration-writes";

export { ALREADY_MEMBER, ENTITLEMENT_NOT_FOUND, INTEGRATION_WORKFLOWS } from "./integration-writes";

const listIntegrations: Route = {
  method: "GET",
  pattern: "/integrations",
  scopes: (world) => scopesOf("GET /integrations", world.scopeTable),
  query: PAGE_QUERY,
  handle(ctx) {
    const { store } = ctx.world;
    const body = listPage(ctx, "/api/v1/integrations", () => store.listIntegrations(), {
      removeBefore(start) {
        const gone = store
          .listIntegrations()
          .slice(0, start)
          .find((i) => store.otherAdmin.integrations.has(i.id));
        return gone !== undefined && store.removeIntegration(gone.id);
      },
      // Another admin does not create integrations between two page reads: simulated.
      insertBefore: () => false,
    });
    return { status: 200, body: { ...body, data: body.data.map(integrationRecord) } };
  },
};

const readIntegration: Route = {
  method: "GET",
  pattern: "/integrations/:id",
  scopes: (world) => scopesOf("GET /integrations/:id", world.scopeTable),
  handle(ctx) {
    const integration = integrationOf(ctx);
    return { status: 200, body: { data: integrationRecord(integration), links: { self: base(integration) }, meta: {} } };
  },
};

const listEntitlements: Route = {
  method: "GET",
  pattern: "/integrations/:id/entitlements",
  scopes: (world) => scopesOf("GET /integrations/:id/entitlements", world.scopeTable),
  handle(ctx) {
    const integration = integrationOf(ctx);
    return {
      status: 200,
      body: { data: integration.entitlements.map(entitlementRecord), links: { self: `${base(integration)}/entitlements` }, meta: {} },
    };
  },
};

const listMembers: Route = {
  method: "GET",
  pattern: "/integrations/:id/users",
  scopes: (world) => scopesOf("GET /integrations/:id/users", world.scopeTable),
  query: PAGE_QUERY,
  handle(ctx) {
    const integration = integrationOf(ctx);
    const { store } = ctx.world;
    // A service that serves the list at `/user` alone links its pages there.
    const list = ctx.world.quirks.memberListPath === "singular" ? "user" : "users";
    const body = listPage(ctx, `${base(integration)}/${list}`, () => [...integration.members.values()], {
      removeBefore(start) {
        const gone = [...integration.members.values()].slice(0, start).find((m) => store.removableMember(integration.id, m));
        return gone !== undefined && store.removeMember(integration.id, gone.userId);
      },
      insertBefore(start) {
        if (!store.otherAdmin.active) return false;
        store.addOtherAdminMember(integration.id, start - 1);
        return true;
      },
    });
    return { status: 200, body: { ...body, data: body.data.map((m) => userRecordOf(ctx.world.store, integration, m)) } };
  },
};

const readMember: Route = {
  method: "GET",
  pattern: "/integrations/:id/users/:userId",
  scopes: (world) => scopesOf("GET /integrations/:id/users/:userId", world.scopeTable),
  handle(ctx) {
    const integration = integrationOf(ctx);
    const member = memberOf(integration, param(ctx, "userId"));
    return {
      status: 200,
      body: {
        data: userRecordOf(ctx.world.store, integration, member),
        links: { self: `${base(integration)}/users/${encodeURIComponent(member.userId)}` },
        meta: {},
      },
    };
  },
};

/** The document writes the list path as `/integrations/{id}/user` (singular); both spellings answer. */
function singularAlias(route: Route): Route {
  return { ...route, pattern: "/integrations/:id/user" };
}

/** The integration routes. */
export const integrationRoutes: readonly Route[] = [
  listIntegrations,
  readIntegration,
  listEntitlements,
  listMembers,
  singularAlias(listMembers),
  readMember,
  invite,
  singularAlias(invite),
  setEntitlements,
  addRemoveEntitlements,
  removeMember,
];
