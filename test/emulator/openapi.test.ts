/**
 * Holds every answer of a tour of the whole API against the public document's response
 * schemas (errors against its `error` schema, the assumed user writes against its `users`
 * and `integrationJob` schemas). Skipped when the document is not beside the repository.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { type Answer, at, type CallOptions, call, TEAM, teamSeed, userBody } from "./helpers";
import { check, hasOpenApi, loadOpenApi, responseSchema, templateFor } from "./openapi-schema";

interface Exchange {
	method: string;
	path: string;
	answer: Answer;
}

const tube = `integrations/${TEAM.tube}`;
const NOBODY = "00000000-0000-4000-8000-000000000000";

describe.skipIf(!hasOpenApi)("answers conform to the public OpenAPI document", () => {
	const exchanges: Exchange[] = [];
	let emulator: Emulator;
	let jobsEmulator: Emulator;

	async function record(e: Emulator, method: string, path: string, options?: CallOptions): Promise<Answer> {
		const answer = await call(e, method, path, options);
		exchanges.push({ method, path: `/${path.split("?")[0]}`, answer });
		return answer;
	}

	async function pollAll(e: Emulator, id: string): Promise<void> {
		for (let i = 0; i < 4; i++) await record(e, "GET", `jobs/${id}`);
	}

	beforeAll(async () => {
		emulator = await startEmulator({
			seed: { ...teamSeed(), users: [...teamSeed().users, { email: "mfa@example.com", firstName: "M", lastName: "FA", mfaEnabled: true }] },
			keys: { none: [] },
		});
		jobsEmulator = await startEmulator({ seed: teamSeed(), userWritesAsJobs: true, rateLimit: { requests: 1000, windowMs: 60_000 } });
		const e = emulator;
		await record(e, "GET", "users");
		await record(e, "GET", "users?mfaStatus=true&page[size]=2&page[number]=2");
		await record(e, "GET", "users?filter=ada");
		await record(e, "GET", `users/${TEAM.ada}?mfaStatus=true`);
		await record(e, "GET", `users/${NOBODY}`);
		await record(e, "GET", "users?page[size]=500");
		const created = await record(e, "POST", "users", { body: userBody({ email: "tour@example.com" }) });
		await record(e, "POST", "users", { body: userBody({ email: "tour@example.com" }) });
		await record(e, "POST", "users", { body: { data: {} } });
		await record(e, "POST", "users", { raw: "{" });
		const newId = at(created.json, "data", "id") as string;
		await record(e, "PUT", `users/${newId}`, { body: userBody({ email: "tour2@example.com" }) });
		await record(e, "PUT", `users/${newId}`, { body: userBody({ email: "ada@example.com" }) });
		await record(e, "PUT", `users/${NOBODY}`, { body: userBody({ email: "x@example.com" }) });
		await record(e, "DELETE", `users/${newId}`);
		await record(e, "DELETE", `users/${newId}`);

		await record(e, "GET", "integrations");
		await record(e, "GET", tube);
		await record(e, "GET", `integrations/${NOBODY}`);
		await record(e, "GET", `${tube}/entitlements`);
		await record(e, "GET", `${tube}/users`);
		await record(e, "GET", `${tube}/user?page[size]=1`);
		await record(e, "GET", `${tube}/users/${TEAM.bob}`);
		await record(e, "GET", `${tube}/users/${TEAM.cy}`);

		const invite = await record(e, "POST", `${tube}/users`, {
			body: { data: { type: "invite_tenant_users", attributes: { role: "account_owner", entitlements: [{ id: "VIEWER" }], userIds: [TEAM.cy] } } },
		});
		await pollAll(e, at(invite.json, "data", "id") as string);
		await record(e, "POST", `${tube}/users`, { body: { data: { type: "invite_tenant_users", attributes: {} } } });
		const set = await record(e, "PATCH", `${tube}/users/${TEAM.ada}`, { body: { data: { type: "update_user_entitlement", attributes: { entitlements: [{ id: "NOPE" }] } } } });
		await pollAll(e, at(set.json, "data", "id") as string);
		const addRemove = await record(e, "PATCH", `${tube}/users/${TEAM.ada}/entitlements`, { body: { data: { add: { entitlements: [{ id: "EDITOR" }] } } } });
		await pollAll(e, at(addRemove.json, "data", "id") as string);
		e.jobs.failNext(1, { errorType: "mfa_required", screenshotUrl: null, userRequired: true });
		const removal = await record(e, "DELETE", `${tube}/users/${TEAM.bob}`);
		await pollAll(e, at(removal.json, "data", "id") as string);
		e.jobs.failNext(1, { errorType: "captcha", screenshotUrl: "https://example.com/s.png" });
		const again = await record(e, "DELETE", `${tube}/users/${TEAM.bob}`);
		await pollAll(e, at(again.json, "data", "id") as string);
		await record(e, "GET", `jobs/${NOBODY}`);

		await record(e, "GET", "users", { key: null });
		await record(e, "GET", "users", { key: "none" });
		e.setMissingScopeStatus(401);
		await record(e, "GET", `${tube}/users`, { key: "none" });
		await record(e, "GET", "nothing-here");
		await record(e, "PATCH", "users");
		e.fault({ path: "/users", status: 503 });
		await record(e, "GET", "users");
		e.setRateLimit({ requests: 1, windowMs: 60_000 });
		await record(e, "GET", "users");
		await record(e, "GET", "users");

		const j = jobsEmulator;
		const userJob = await record(j, "POST", "users", { body: userBody({ email: "job@example.com" }) });
		await pollAll(j, at(userJob.json, "data", "id") as string);
		await record(j, "PUT", `users/${TEAM.cy}`, { body: userBody({ email: "cy@example.com" }) });
		await record(j, "DELETE", `users/${TEAM.cy}`);
	});

	afterAll(async () => {
		await emulator?.close();
		await jobsEmulator?.close();
	});

	function schemaFor(doc: Record<string, unknown>, exchange: Exchange): unknown {
		const { method, path, answer } = exchange;
		const template = templateFor(doc, method, path);
		const documented = responseSchema(doc, template, method, answer.status);
		if (documented !== undefined) return documented;
		if (answer.status >= 400) return { $ref: "#/components/schemas/error" };
		// The assumed user writes: a user record, or a job when writes answer with jobs.
		const data = at(answer.json, "data", "type") === "job" ? { $ref: "#/components/schemas/integrationJob" } : { $ref: "#/components/schemas/users" };
		return { type: "object", properties: { data, links: { $ref: "#/components/schemas/links" }, meta: { $ref: "#/components/schemas/meta" } } };
	}

	it("covers every status the emulator answers", () => {
		const statuses = new Set(exchanges.map((x) => x.answer.status));
		expect([...statuses].sort()).toEqual([200, 201, 204, 400, 401, 403, 404, 405, 409, 429, 503]);
		const jobStatuses = new Set(exchanges.filter((x) => x.path.startsWith("/jobs/")).map((x) => at(x.answer.json, "data", "attributes", "status")));
		expect(jobStatuses).toEqual(new Set(["running", "finished", "error", undefined]));
	});

	it("every answer body matches its schema", () => {
		const doc = loadOpenApi();
		const problems = exchanges.flatMap((exchange) => {
			if (exchange.answer.status === 204) return exchange.answer.text === "" ? [] : [`${exchange.method} ${exchange.path}: 204 with a body`];
			if (exchange.answer.json === undefined) return [`${exchange.method} ${exchange.path}: not JSON`];
			return check(doc, schemaFor(doc, exchange), exchange.answer.json).map((p) => `${exchange.method} ${exchange.path} ${exchange.answer.status} ${p}`);
		});
		expect(problems).toEqual([]);
	});

	it("every error body also matches the document's error schema", () => {
		const doc = loadOpenApi();
		const errors = exchanges.filter((x) => x.answer.status >= 400);
		expect(errors.length).toBeGreaterThan(10);
		for (const x of errors) {
			expect(check(doc, { $ref: "#/components/schemas/error" }, x.answer.json)).toEqual([]);
			expect(at(x.answer.json, "errors", 0, "status")).toBe(x.answer.status);
		}
	});
});
