// `--sasl-admin <user>:<password>` and `--sasl-user <user>:<password>` (repeatable).
// They are taken out of argv before the settings are parsed, so the passwords never
// enter BrokerConfig (which DescribeConfigs exposes) or any log line.
import { applySettings } from "../../config-sources.ts";
import type { BrokerConfig } from "../../config.ts";
import { BootstrapUserError, parseUserPassword, type BootstrapUser } from "./bootstrap.ts";

export interface SaslFlags {
  /** argv without the SASL flags. */
  rest: string[];
  admin: BootstrapUser | null;
  users: BootstrapUser[];
}

export function extractSaslFlags(argv: readonly string[]): SaslFlags {
  const rest: string[] = [];
  let admin: BootstrapUser | null = null;
  const users: BootstrapUser[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (flag !== "--sasl-admin" && flag !== "--sasl-user") {
      rest.push(arg);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new BootstrapUserError(`${flag} needs <user>:<password>`);
    const user = parseUserPassword(flag, value);
    if (flag === "--sasl-admin") {
      if (admin) throw new BootstrapUserError("--sasl-admin may be given once");
      admin = user;
    } else users.push(user);
  }
  return { rest, admin, users };
}

/**
 * What --sasl-admin turns on: a SASL_PLAINTEXT listener on host:port (unless
 * `listeners` was given explicitly), the ACL authorizer (unless one was chosen),
 * and the admin as a super user (added to any configured super.users).
 */
export function applySaslAdmin(config: BrokerConfig, admin: BootstrapUser): BrokerConfig {
  const principal = `User:${admin.name}`;
  const supers = (config["super.users"] ?? "").split(";").map((s) => s.trim()).filter((s) => s !== "");
  const settings: Record<string, string> = {
    "super.users": supers.includes(principal) ? supers.join(";") : [...supers, principal].join(";"),
  };
  if (config.listeners === null) settings.listeners = `SASL_PLAINTEXT://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`;
  if (config["authorizer.class.name"] === null) settings["authorizer.class.name"] = "standard";
  return applySettings(config, settings);
}
