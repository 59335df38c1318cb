/**
 * Every route of the emulated API, in one table.
 */
import type { Route } from "./context";
import { integrationRoutes } from "./integrations";
import { jobRoutes } from "./jobs";
import { userRoutes } from "./users";

/** The whole API. */
export const allRoutes: readonly Route[] = [...userRoutes, ...integrationRoutes, ...jobRoutes];
