// Builds the ACL authorizer the broker settings ask for (authorizer.class.name,
// super.users, allow.everyone.if.no.acl.found); ACLs live in <log.dirs>/acls.
import { join } from "node:path";
import type { BrokerConfig } from "../../config.ts";
import { StandardAuthorizer, parseSuperUsers } from "./standard-authorizer.ts";

export type { StandardAuthorizer } from "./standard-authorizer.ts";

export function aclAuthorizerFromConfig(config: BrokerConfig): StandardAuthorizer | null {
  if (config["authorizer.class.name"] === null) return null;
  return new StandardAuthorizer({
    superUsers: parseSuperUsers(config["super.users"]),
    allowEveryoneIfNoAclFound: config["allow.everyone.if.no.acl.found"],
    dir: join(config["log.dirs"], "acls"),
  });
}
