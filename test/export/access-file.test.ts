/**
 * `access.yaml` (issue 16): written and read with the `yaml` library, every tricky value read back
 * the same, the file's shape and its checks naming the line and the field, and resource names:
 * URN-safe, unique, stable, collisions broken by each record's own hash.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { type AccessFile, type AccessLeftOut, formatAccessFile, parseAccessFile, readAccessFile } from "../../src/export/access-file";
import { AccessFileError } from "../../src/export/errors";
import { integrationBaseName, MAX_NAME_LENGTH, membershipName, uniqueNames, userBaseName } from "../../src/export/names";

const TRICKY = [
  "plain",
  "Ann Lee",
  "O'Brien",
  'say "hi"',
  "back\\slash",
  "true",
  "False",
  "yes",
  "no",
  "on",
  "off",
  "null",
  "~",
  "y",
  "N",
  "",
  " leading",
  "trailing ",
  "two  spaces",
  "123",
  "0x1F",
  "1e3",
  "-5",
  ".inf",
  "2024-01-01",
  "a: b",
  "a #b",
  "#hash",
  "- dash",
  "-",
  "[list]",
  "{map}",
  "&anchor",
  "*alias",
  "!tag",
  "|block",
  ">folded",
  "%percent",
  "@at",
  "`tick",
  "line\nbreak",
  "tab\there",
  "cr\rhere",
  "bell\u0007",
  "del\u007f",
  "nel\u0085",
  "nbsp\u00a0",
  "ls\u2028ps\u2029",
  "bom\ufeff",
  "José Ñúñez",
  "東京",
  "emoji 😀",
  "user+tag@Example.COM",
  "7a5e0000-0000-4000-8000-000000000000",
];

/** A file of one user whose first name is `value`. */
const withFirstName = (value: string): AccessFile => ({
  version: 1,
  scope: { membersOnly: false },
  users: [{ name: "a", email: "a@x.example", firstName: value, lastName: value }],
  integrations: [],
  leftOut: [],
});

describe("values", () => {
  it.each(TRICKY.filter((value) => value !== ""))("%j is written so that it reads back the same", (value) => {
    const text = formatAccessFile(withFirstName(value));
    expect(parseAccessFile(text).users[0]).toMatchObject({ firstName: value, lastName: value });
  });

  it("are plain where nothing could misread them, quoted otherwise", () => {
    const line = (value: string) =>
      formatAccessFile(withFirstName(value))
        .split("\n")
        .find((l) => l.includes("firstName"));
    expect(line("Ann Lee")).toBe("    firstName: Ann Lee");
    expect(line("true")).toBe('    firstName: "true"');
    expect(line("123")).toBe('    firstName: "123"');
    expect(line("a: b")).toBe('    firstName: "a: b"');
    expect(line("line\nbreak")).toBe('    firstName: "line\\nbreak"');
  });
});

const SAMPLE: AccessFile = {
  version: 1,
  workspace: "https://acme.example.com/api/v1/",
  scope: { integrations: ["5b1f0000-0000-4000-8000-000000000001"], membersOnly: true },
  users: [
    {
      name: "ann-at-acme.example",
      email: "ann@acme.example",
      firstName: "Ann",
      lastName: "O'Brien",
      role: "workspace_owner",
      isGuest: false,
    },
    { name: "bob-at-acme.example", email: "Bob@Acme.example", firstName: "true", lastName: "null" },
  ],
  integrations: [
    {
      name: "salesforce-acme",
      id: "5b1f0000-0000-4000-8000-000000000001",
      label: "Salesforce: acme #1",
      application: "Salesforce",
      members: [
        { user: "ann@acme.example", role: "account_owner", entitlements: ["ADMIN", "VIEWER"] },
        { user: "Bob@Acme.example", role: "account_collaborator", entitlements: ["VIEWER"] },
      ],
    },
    { name: "empty", id: "5b1f0000-0000-4000-8000-000000000002", members: [] },
  ],
  leftOut: [
    { kind: "integration", id: "5b1f0000-0000-4000-8000-000000000003", reason: 'field "attributes.label": expected string' },
    { kind: "user", id: "7a5e0000-0000-4000-8000-000000000050", email: "pending@acme.example", reason: "no first name" },
    {
      kind: "membership",
      integration: "5b1f0000-0000-4000-8000-000000000001",
      id: "7a5e0000-0000-4000-8000-000000000050",
      email: "pending@acme.example",
      reason: "its user is left out (no first name)",
    },
  ],
};

describe("access.yaml", () => {
  it("round-trips: what formatAccessFile writes, parseAccessFile reads back, and writes again the same", () => {
    const text = formatAccessFile(SAMPLE);
    const parsed = parseAccessFile(text);
    const { memberships, ...file } = parsed;
    expect(file).toEqual(SAMPLE);
    expect(formatAccessFile(file)).toBe(text);
    expect(memberships).toEqual([
      {
        name: "salesforce-acme--ann-at-acme.example",
        integrationId: "5b1f0000-0000-4000-8000-000000000001",
        integration: "Salesforce: acme #1",
        user: "ann@acme.example",
        userName: "ann-at-acme.example",
        role: "account_owner",
        entitlements: ["ADMIN", "VIEWER"],
      },
      {
        name: "salesforce-acme--bob-at-acme.example",
        integrationId: "5b1f0000-0000-4000-8000-000000000001",
        integration: "Salesforce: acme #1",
        user: "Bob@Acme.example",
        userName: "bob-at-acme.example",
        role: "account_collaborator",
        entitlements: ["VIEWER"],
      },
    ]);
  });

  it("reads the hand edits people make in the same style: comments, single quotes, a list at its key's indentation, a default role", () => {
    const text = [
      "version: 1  # the shape",
      "scope:",
      "  membersOnly: false",
      "users:",
      "- name: cy",
      "  email: 'cy@acme.example'",
      "  firstName: Cy # a comment",
      "  lastName: 'D''Arcy'",
      "integrations:",
      "- name: slack",
      "  id: 3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a02",
      "  members:",
      "  - user: CY@acme.example",
      "    entitlements: [ MEMBER , 'ADMIN' ]",
      "",
    ].join("\n");
    const parsed = parseAccessFile(text);
    expect(parsed.users).toEqual([{ name: "cy", email: "cy@acme.example", firstName: "Cy", lastName: "D'Arcy" }]);
    expect(parsed.memberships).toEqual([
      expect.objectContaining({
        name: "slack--cy",
        user: "cy@acme.example",
        role: "account_collaborator",
        entitlements: ["ADMIN", "MEMBER"],
      }),
    ]);
  });

  const base = "version: 1\nusers:\n  - name: a\n    email: a@x.example\n    firstName: A\n    lastName: B\n";
  it.each([
    ["a wrong version", "version: 2\n", /version must be 1/],
    ["a tab", "version: 1\nusers:\n\t- name: a\n", /^\/p\/access\.yaml, line 3, column 1: Tabs are not allowed as indentation$/],
    ["a quote left open", 'version: 1\nworkspace: "http://x\n', /^\/p\/access\.yaml, line 3, column 1: Missing closing "quote$/],
    ["a key twice", "version: 1\nversion: 1\n", /^\/p\/access\.yaml, line 2, column 1: Map keys must be unique$/],
    [
      "an escape YAML does not know, mid-line",
      'version: 1\nusers:\n  - name: a\n    email: a@x.example\n    firstName: "A\\q"\n    lastName: B\n',
      /^\/p\/access\.yaml, line 5, column 18: Invalid escape sequence \\q$/,
    ],
    [
      "a mapping in a compact mapping",
      "version: 1\nworkspace: a: b\n",
      /^\/p\/access\.yaml, line 2, column 12: Nested mappings are not allowed/,
    ],
    [
      "a missing name",
      "version: 1\nusers:\n  - email: a@x.example\n    firstName: A\n    lastName: B\n",
      /^\/p\/access\.yaml, line 3: users\[0\]\.name must be text$/,
    ],
    [
      "a number for a name",
      `${base}  - name: b\n    email: b@x.example\n    firstName: 123\n    lastName: B\n`,
      /^\/p\/access\.yaml, line 9: users\[1\]\.firstName must be text \(quote it: "123"\)$/,
    ],
    [
      "an email twice",
      `${base}  - name: b\n    email: A@X.example\n    firstName: A\n    lastName: B\n`,
      /the email A@X\.example is listed twice/,
    ],
    [
      "a member who is not a user",
      `${base}integrations:\n  - name: s\n    id: i\n    members:\n      - user: z@x.example\n        entitlements: [V]\n`,
      /z@x\.example is not one of the users/,
    ],
    [
      "a member without entitlements",
      `${base}integrations:\n  - name: s\n    id: i\n    members:\n      - user: a@x.example\n        entitlements: []\n`,
      /must name at least one entitlement/,
    ],
    [
      "an unknown role",
      `${base}integrations:\n  - name: s\n    id: i\n    members:\n      - user: a@x.example\n        role: owner\n        entitlements: [V]\n`,
      /role must be account_owner or account_collaborator/,
    ],
    [
      "a left-out record of no known kind",
      "version: 1\nleftOut:\n  - kind: group\n    reason: x\n",
      /leftOut\[0\]\.kind must be integration, user, membership/,
    ],
    ["a left-out record without a reason", "version: 1\nleftOut:\n  - kind: user\n    id: u\n", /leftOut\[0\]\.reason must be text/],
    // A misspelt key would be dropped, and what the person meant to declare silently not declared.
    [
      "a misspelt user key",
      `${base}    rol: workspace_super_admin\n`,
      /^\/p\/access\.yaml, line 7: users\[0\] has an unknown key "rol" \(did you mean "role"\?\)$/,
    ],
    [
      "a key in another case",
      `${base}    isguest: true\n`,
      /^\/p\/access\.yaml, line 7: users\[0\] has an unknown key "isguest" \(did you mean "isGuest"\?\)$/,
    ],
    [
      "a misspelt member role, not read as the default role",
      `${base}integrations:\n  - name: s\n    id: i\n    members:\n      - user: a@x.example\n        Role: account_owner\n        entitlements: [ADMIN]\n`,
      /^\/p\/access\.yaml, line 12: integrations\[0\]\.members\[0\] has an unknown key "Role" \(did you mean "role"\?\)$/,
    ],
    [
      "a misspelt key whose field is then missing",
      "version: 1\nusers:\n  - name: a\n    emial: a@x.example\n    firstName: A\n    lastName: B\n",
      /^\/p\/access\.yaml, line 4: users\[0\] has an unknown key "emial" \(did you mean "email"\?\)$/,
    ],
    // YAML 1.2 has no merge key: `<<` is read as a key of its own, not as the keys of the mapping it names.
    [
      "a merge key, not taken for a misspelt key",
      `${base}  - <<: {firstName: A, lastName: B}\n    name: b\n    email: b@x.example\n`,
      /^\/p\/access\.yaml, line 7: users\[1\] has a merge key "<<", which access\.yaml does not read \(it is YAML 1\.2\): write each key out; an alias \(\*name\) may stand for a whole value$/,
    ],
    [
      "a key like none of the file's",
      "version: 1\nowner: ann\n",
      /^\/p\/access\.yaml, line 2: the file has an unknown key "owner": the keys of the file are version, workspace, scope, users, integrations, leftOut$/,
    ],
    [
      "a misspelt scope key",
      "version: 1\nscope:\n  memberOnly: true\n",
      /^\/p\/access\.yaml, line 3: scope has an unknown key "memberOnly" \(did you mean "membersOnly"\?\)$/,
    ],
    [
      "a misspelt key of a record left out",
      "version: 1\nleftOut:\n  - kind: user\n    id: u\n    reasn: x\n",
      /^\/p\/access\.yaml, line 5: leftOut\[0\] has an unknown key "reasn" \(did you mean "reason"\?\)$/,
    ],
    // The library's own message says to call its API (`YAML.parseAllDocuments()`): none a person editing the file has.
    [
      "a second document",
      `---\n${base}---\nversion: 1\n`,
      /^\/p\/access\.yaml, line 8: `---` begins a second YAML document; access\.yaml must hold one: remove the line, or the document it begins$/,
    ],
    [
      "a second document after the end of the first",
      `${base}...\nversion: 1\n`,
      /^\/p\/access\.yaml, line 8: a second YAML document begins here, after the `\.\.\.` that ends the first; access\.yaml must hold one: remove the `\.\.\.` line, or the document after it$/,
    ],
    // The library throws a bare ReferenceError for it when the data is read, naming neither the file nor the place.
    [
      "an alias with no anchor",
      "version: 1\nworkspace: *y\n",
      /^\/p\/access\.yaml, line 2, column 12: the alias \*y names no anchor &y before it$/,
    ],
    [
      "an alias before its anchor, in a list",
      `${base}integrations:\n  - name: s\n    id: i\n    members:\n      - user: a@x.example\n        entitlements: [*e]\n  - name: t\n    id: j\n    members: &e []\n`,
      /^\/p\/access\.yaml, line 12, column 24: the alias \*e names no anchor &e before it$/,
    ],
    [
      "aliases that expand too far (a file made to exhaust the reader's memory)",
      `version: 1\na: &a [${"x, ".repeat(9)}x]\nb: &b [${"*a, ".repeat(9)}*a]\nc: [${"*b, ".repeat(9)}*b]\n`,
      /^\/p\/access\.yaml: its aliases could not be read: Excessive alias count/,
    ],
    [
      "a misspelt integration key in a flow mapping",
      `${base}integrations:\n  - {name: s, id: i, lable: S, members: []}\n`,
      /^\/p\/access\.yaml, line 8: integrations\[0\] has an unknown key "lable" \(did you mean "label"\?\)$/,
    ],
  ])("refuses %s, naming the place", (_what, text, message) => {
    expect(() => parseAccessFile(text, "/p/access.yaml")).toThrow(AccessFileError);
    expect(() => parseAccessFile(text, "/p/access.yaml")).toThrow(message);
  });
});

describe("readAccessFile, the exported program's read", () => {
  // What a resource's check refuses would else fail the preview naming a resource and a program's fix, not access.yaml's line.
  const user = (email: string, extra = "") => `  - name: a\n    email: ${email}\n    firstName: A\n    lastName: B\n${extra}`;
  const ok = "7a5e0000-0000-4000-8000-000000000001";
  const integration = (id: string, entitlements = "[VIEWER]") =>
    `integrations:\n  - name: s\n    id: ${id}\n    members:\n      - user: a@x.example\n        entitlements: ${entitlements}\n`;
  const read = (text: string) => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pwa-access-read-")), "access.yaml");
    fs.writeFileSync(file, text);
    try {
      return readAccessFile(file);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  };
  it.each([
    [
      "an integration named by its label, not its id",
      `version: 1\nusers:\n${user("a@x.example")}${integration("Salesforce acme")}`,
      /^.*access\.yaml, line 9: integrations\[0\]\.id must be the integration's UUID, such as d538422e-b135-4ee0-8393-54eecbcb4a07, not its label or application: `workspace-access-export --check --out \.` names each integration the workspace has by label and id$/,
    ],
    [
      "an email the service would refuse",
      `version: 1\nusers:\n${user("ann@x")}`,
      /^.*access\.yaml, line 4: users\[0\]\.email must be a valid address such as alice@example\.com$/,
    ],
    [
      "an email with a space at its end, quoted",
      `version: 1\nusers:\n${user('"a@x.example "')}`,
      /^.*access\.yaml, line 4: users\[0\]\.email must not start or end with spaces$/,
    ],
    [
      "a name over 100 characters",
      `version: 1\nusers:\n  - name: a\n    email: a@x.example\n    firstName: ${"A".repeat(101)}\n    lastName: B\n`,
      /^.*access\.yaml, line 5: users\[0\]\.firstName must be at most 100 characters$/,
    ],
    [
      "an entitlement id no resource can declare",
      `version: 1\nusers:\n${user("a@x.example")}${integration(ok, '["VIEW ER"]')}`,
      /^.*access\.yaml, line 12: integrations\[0\]\.members\[0\]\.entitlements has "VIEW ER": each entitlement id must be letters, digits and "_\.:@\+-"/,
    ],
  ])("refuses %s, naming the line and the fix", (_what, text, message) => {
    expect(() => read(text)).toThrow(AccessFileError);
    expect(() => read(text)).toThrow(message);
  });

  it("reads what the resources take, as parseAccessFile does", () => {
    const text =
      `version: 1\nusers:\n${user("Ann.Lee+ops@X.example", `    role: workspace_billing_admin\n    id: ${ok}\n`)}${integration(ok)}`.replace(
        "user: a@x.example",
        "user: ann.lee+ops@x.example",
      );
    expect(read(text)).toEqual(parseAccessFile(text));
  });
});

describe("access.yaml as any YAML reader writes it", () => {
  it("reads flow mappings, block lists and other styles the library reads", () => {
    const text =
      "version: 1\nscope: {membersOnly: true, integrations: [i]}\nusers:\n  - {name: a, email: a@x.example, firstName: A, lastName: B}\n";
    expect(parseAccessFile(text)).toMatchObject({ scope: { membersOnly: true, integrations: ["i"] }, users: [{ name: "a" }] });
  });
});

describe("access.yaml's leftOut", () => {
  it("is written sorted (integrations, users, memberships), one per key, and read back so", () => {
    const unsorted: AccessFile = { ...SAMPLE, leftOut: [...SAMPLE.leftOut!].reverse() };
    const text = formatAccessFile(unsorted);
    expect(text).toBe(formatAccessFile(SAMPLE));
    expect(parseAccessFile(text).leftOut).toEqual(SAMPLE.leftOut);
  });

  it("writes records of one id as one, each reason once, and what was read of its access where they agree", () => {
    const [integration, user, membership] = SAMPLE.leftOut as [AccessLeftOut, AccessLeftOut, AccessLeftOut];
    const held = { role: "collaborator", entitlements: ["READ"] };
    const twice: AccessFile = {
      ...SAMPLE,
      leftOut: [
        integration,
        { ...user, reason: "listed twice, differently" },
        { ...user, email: undefined, role: "workspace_login_only", reason: "no first name" },
        { ...user, reason: "listed twice, differently" },
        { ...membership, ...held, reason: "listed twice, differently" },
        { ...membership, ...held },
      ],
    };
    const read = parseAccessFile(formatAccessFile(twice)).leftOut;
    expect(read).toEqual([
      integration,
      // The email one copy gives; a role only one copy was read with is not what the record held.
      { ...user, reason: "listed twice, differently | no first name" },
      { ...membership, ...held, reason: "its user is left out (no first name) | listed twice, differently" },
    ]);
    expect(formatAccessFile({ ...twice, leftOut: read })).toBe(formatAccessFile(twice));
  });

  it("keeps records added by hand without ids, of the same kind and integration, apart by their emails", () => {
    const text =
      "version: 1\nleftOut:\n" +
      "  - kind: user\n    email: bob@x.example\n    reason: no first name\n" +
      "  - kind: user\n    email: ann@x.example\n    reason: no last name\n" +
      "  - kind: membership\n    integration: i\n    email: ann@x.example\n    reason: its user is left out\n" +
      "  - kind: membership\n    integration: i\n    email: bob@x.example\n    reason: its user is left out\n";
    const parsed = parseAccessFile(text);
    expect(parsed.leftOut.map((l) => [l.kind, l.email])).toEqual([
      ["user", "ann@x.example"],
      ["user", "bob@x.example"],
      ["membership", "ann@x.example"],
      ["membership", "bob@x.example"],
    ]);
    expect(parseAccessFile(formatAccessFile(parsed)).leftOut).toEqual(parsed.leftOut);
  });

  const twice = (a: string, b: string) => `version: 1\nleftOut:\n  - kind: user\n${a}    reason: x\n  - kind: user\n${b}    reason: y\n`;
  it.each([
    ["the same id", twice("    id: u-1\n", "    id: U-1\n"), 6, "user u-1"],
    ["no id and the same email, whatever its case", twice("    email: a@x.example\n", "    email: A@x.example\n"), 6, "user A@x.example"],
  ])("refuses two records it cannot tell apart (%s), naming both lines", (_what, text, line, named) => {
    expect(() => parseAccessFile(text, "/p/access.yaml")).toThrow(AccessFileError);
    expect(() => parseAccessFile(text, "/p/access.yaml")).toThrow(
      `/p/access.yaml, line ${line}: leftOut[1]: ${named} is left out twice, here and at leftOut[0] (line 3): remove one ` +
        "(records left out are told apart by kind, integration and id, else email)",
    );
  });

  it("refuses two records with neither id nor email, naming both lines and the count that stands for both", () => {
    expect(() => parseAccessFile(twice("", "    count: 2\n"), "/p/access.yaml")).toThrow(
      "/p/access.yaml, line 5: leftOut[1]: user (no id, no email) is left out twice, here and at leftOut[0] (line 3): records " +
        "with neither id nor email cannot be told apart, so one stands for all of them: remove this one and give that one `count: 3`",
    );
  });

  it("refuses two memberships of one user in one integration, naming both lines", () => {
    const member = "  - kind: membership\n    integration: i\n    email: a@x.example\n    reason: x\n";
    expect(() => parseAccessFile(`version: 1\nleftOut:\n${member}${member}`, "/p/access.yaml")).toThrow(
      "/p/access.yaml, line 7: leftOut[1]: membership of a@x.example in integration i is left out twice, here and at leftOut[0] (line 3)",
    );
  });

  it("is read as empty from a file written before it was recorded, and written as []", () => {
    const old = "version: 1\nscope:\n  membersOnly: false\nusers: []\nintegrations: []\n";
    const parsed = parseAccessFile(old);
    expect(parsed.leftOut).toEqual([]);
    expect(formatAccessFile(parsed).endsWith("integrations: []\nleftOut: []\n")).toBe(true);
  });
});

describe("resource names", () => {
  it("are derived from the email and the label, lowercased and URN-safe", () => {
    expect(userBaseName("Ann.Lee+ops@Acme.example")).toBe("ann.lee-ops-at-acme.example");
    expect(userBaseName("User003@ACME.EXAMPLE")).toBe("user003-at-acme.example");
    expect(integrationBaseName({ id: "i", label: "GitHub acme-labs", application: "GitHub" })).toBe("github-acme-labs");
    expect(integrationBaseName({ id: "i", label: null, application: "Slack" })).toBe("slack");
    expect(integrationBaseName({ id: "5b1f", label: "  ", application: null })).toBe("integration");
    expect(membershipName("github-acme", "ann-at-acme.example")).toBe("github-acme--ann-at-acme.example");
    for (const name of [userBaseName("\u00e9l\u00e8ve::x@[::1]"), integrationBaseName({ id: "x", label: "a::b/c", application: null })]) {
      expect(name).toMatch(/^[a-z0-9._-]+$/);
    }
  });

  it("are cut at MAX_NAME_LENGTH with a hash of the whole key, so long emails stay unique", () => {
    const a = userBaseName(`${"a".repeat(120)}1@x.example`);
    const b = userBaseName(`${"a".repeat(120)}2@x.example`);
    expect(a.length).toBeLessThanOrEqual(MAX_NAME_LENGTH);
    expect(a).not.toBe(b);
  });

  it("break collisions with each record's own hash, whatever the order, and leave other names alone", () => {
    const records = [
      { key: "a.b@x.example", base: userBaseName("a.b@x.example") },
      { key: "a+b@x.example", base: userBaseName("a+b@x.example") },
      { key: "a-b@x.example", base: userBaseName("a-b@x.example") },
      { key: "c@x.example", base: userBaseName("c@x.example") },
    ];
    expect(records[1]!.base).toBe(records[2]!.base);
    const names = uniqueNames(records);
    const reversed = uniqueNames([...records].reverse());
    expect([...reversed.entries()].sort()).toEqual([...names.entries()].sort());
    expect(new Set(names.values()).size).toBe(4);
    expect(names.get("a.b@x.example")).toBe("a.b-at-x.example");
    expect(names.get("c@x.example")).toBe("c-at-x.example");
    expect(names.get("a+b@x.example")).toMatch(/^a-b-at-x\.example-[0-9a-f]{8}$/);
    expect(names.get("a-b@x.example")).toMatch(/^a-b-at-x\.example-[0-9a-f]{8}$/);
    // Without the colliding record, the other keeps the same suffixed name only while it collides.
    expect(uniqueNames(records.filter((r) => r.key !== "a+b@x.example")).get("a-b@x.example")).toBe("a-b-at-x.example");
  });

  it("move only when a record of the same base name comes or goes, as docs/export.md says", () => {
    const record = (email: string) => ({ key: email, base: userBaseName(email) });
    const before = uniqueNames([record("a-b@x.example"), record("c@x.example")]);
    // Someone of another base name joins: nobody is renamed.
    const unrelated = uniqueNames([record("a-b@x.example"), record("c@x.example"), record("d@x.example")]);
    expect(unrelated.get("a-b@x.example")).toBe(before.get("a-b@x.example"));
    expect(unrelated.get("c@x.example")).toBe(before.get("c@x.example"));
    // Someone of the same base name joins: the one who had the bare name gets a suffix of its own key, the others keep theirs.
    const colliding = uniqueNames([record("a-b@x.example"), record("c@x.example"), record("a+b@x.example")]);
    expect(before.get("a-b@x.example")).toBe("a-b-at-x.example");
    expect(colliding.get("a-b@x.example")).toMatch(/^a-b-at-x\.example-[0-9a-f]{8}$/);
    expect(colliding.get("c@x.example")).toBe(before.get("c@x.example"));
  });

  it("count a key given twice as one record: a repeat does not collide with itself", () => {
    const names = uniqueNames([
      { key: "id-1", base: "youtube-acme" },
      { key: "id-1", base: "youtube-acme" },
      { key: "id-2", base: "slack" },
    ]);
    expect([...names]).toEqual([
      ["id-1", "youtube-acme"],
      ["id-2", "slack"],
    ]);
  });
});
