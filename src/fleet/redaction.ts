/**
 * Every text a fleet run reports passes through here: the stack's secret config values (its API
 * key among them) and the environment's key are removed, whole or in any run of 8 of their
 * characters, with the client's own redactor. The package's messages never hold the key; this is
 * for what the CLI or the Automation API may echo (config, a program's own error).
 */
import type { ConfigMap } from "@pulumi/pulumi/automation";
import { makeRedactor } from "../client/redact";

/** A redactor of every secret value of `config`, and of `WORKSPACE_ACCESS_API_KEY`. */
export function secretsRedactor(config: ConfigMap, env: NodeJS.ProcessEnv = process.env): (text: string) => string {
  const secrets = Object.values(config)
    .filter((entry) => entry.secret)
    .map((entry) => entry.value);
  const envKey = env["WORKSPACE_ACCESS_API_KEY"]?.trim();
  if (envKey) secrets.push(envKey);
  const redactors = [...new Set(secrets.filter((s) => s.trim() !== ""))].map(makeRedactor);
  return (text) => redactors.reduce((out, redact) => redact(out), text);
}
