/**
 * A stand-in for HashiCorp Vault's transit engine on loopback, the key service of the test stacks' secrets provider
 * (`pulumi stack init --secrets-provider hashivault://<key>`, test/cli/support.ts). The passphrase provider derives its
 * key with a million PBKDF2 rounds in every CLI command that opens the stack (about 0.25 CPU-s, a tenth of a CLI test's
 * time on 2 cores); with this provider the CLI asks the key service once per command to unwrap the stack's data key, and
 * encrypts secrets with it exactly as with a passphrase (AES-256-GCM in config and state). Tests about secrets and the
 * flows the README gives users keep the passphrase.
 *
 * What Vault's API does here: `PUT /v1/transit/encrypt/<key>` `{ plaintext: base64 }` answers `{ data: { ciphertext } }`,
 * `PUT /v1/transit/decrypt/<key>` `{ ciphertext }` answers `{ data: { plaintext: base64 } }`; the ciphertext is
 * `vault:v1:` and AES-256-GCM under a key of this process (a stack's data key stays wrapped). One server per process.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import * as http from "node:http";
import type { AddressInfo } from "node:net";

/** Where the CLI finds the key service (`VAULT_SERVER_URL`, `VAULT_SERVER_TOKEN`: gocloud's hashivault driver). */
export interface FakeVault {
  url: string;
  token: string;
}

let started: Promise<FakeVault> | undefined;

function answer(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** The process's key service, started at the first call; it never keeps the process alive. */
export function fakeVault(): Promise<FakeVault> {
  started ??= new Promise((resolve, reject) => {
    const key = randomBytes(32);
    const token = randomBytes(16).toString("hex");
    const server = http.createServer((req, res) => {
      let text = "";
      req.setEncoding("utf8").on("data", (chunk: string) => {
        text += chunk;
      });
      req.on("end", () => {
        const route = /^\/v1\/transit\/(encrypt|decrypt)\/[\w.-]+$/.exec(req.url ?? "");
        if (req.headers["x-vault-token"] !== token) return answer(res, 403, { errors: ["permission denied"] });
        if (!route || (req.method !== "PUT" && req.method !== "POST")) return answer(res, 404, { errors: [`no route ${req.url}`] });
        try {
          const body = JSON.parse(text) as { plaintext?: string; ciphertext?: string };
          if (route[1] === "encrypt") {
            const iv = randomBytes(12);
            const cipher = createCipheriv("aes-256-gcm", key, iv);
            const sealed = Buffer.concat([cipher.update(Buffer.from(body.plaintext ?? "", "base64")), cipher.final()]);
            return answer(res, 200, {
              data: { ciphertext: `vault:v1:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64")}` },
            });
          }
          const raw = Buffer.from((body.ciphertext ?? "").replace(/^vault:v1:/, ""), "base64");
          const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
          decipher.setAuthTag(raw.subarray(12, 28));
          const plaintext = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
          return answer(res, 200, { data: { plaintext: plaintext.toString("base64") } });
        } catch (error) {
          return answer(res, 400, { errors: [String(error)] });
        }
      });
    });
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.unref();
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token });
    });
  });
  return started;
}
