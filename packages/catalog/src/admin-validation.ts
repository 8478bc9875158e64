import { z } from "zod";
import { SLUG_PATTERN } from "./naming.ts";
import { cleanString } from "./validation.ts";

/*
 * Inputs of the admin actions: domains, members, global roles and the
 * single-sign-on group mapping. Shared by the portal's forms and the server.
 */

export const DOMAIN_SLUG_MAX = 40;
/**
 * Domain slugs become the first segment of every topic and the prefix of the
 * domain's Kafka principals, so the platform's own namespace is off limits:
 * principals under `kappa-` are the platform's (the worker, the message browser).
 */
export const RESERVED_DOMAIN_SLUG = /^kappa(-|$)/;

const domainName = cleanString("Name").max(80, "Name must be at most 80 characters.").trim().min(2, "Name must be at least 2 characters.");

export const createDomainInput = z.object({
  slug: z
    .string()
    .trim()
    .min(2, "Slug must be at least 2 characters.")
    .max(DOMAIN_SLUG_MAX, `Slug must be at most ${DOMAIN_SLUG_MAX} characters.`)
    .regex(SLUG_PATTERN, "Slugs are lower-case letters and digits with single inner dashes, e.g. customer-care.")
    .refine((slug) => !RESERVED_DOMAIN_SLUG.test(slug), "Slugs starting with \"kappa\" are reserved for the platform."),
  name: domainName,
  description: cleanString("Description", { multiline: true }).max(1000, "Description must be at most 1000 characters.").trim().default(""),
});
export type CreateDomainInput = z.input<typeof createDomainInput>;

/** The slug never changes: it is in every topic name and principal of the domain. */
export const renameDomainInput = z.object({
  name: domainName,
  description: cleanString("Description", { multiline: true }).max(1000, "Description must be at most 1000 characters.").trim().optional(),
});

export const MEMBERSHIP_ROLES = ["OWNER", "MEMBER"] as const;
export const GLOBAL_ROLES = ["USER", "GOVERNANCE", "ADMIN"] as const;

export const addMemberInput = z.object({
  email: z.string().trim().toLowerCase().email("Enter the member's e-mail address.").max(254),
  role: z.enum(MEMBERSHIP_ROLES, { message: "Role is OWNER or MEMBER." }),
  /** Used only when the e-mail has no account yet (an SSO-only user is created). */
  name: cleanString("Name").max(120).trim().optional(),
});

export const changeMemberRoleInput = z.object({
  role: z.enum(MEMBERSHIP_ROLES, { message: "Role is OWNER or MEMBER." }),
});

export const setGlobalRoleInput = z.object({
  globalRole: z.enum(GLOBAL_ROLES, { message: "Global role is USER, GOVERNANCE or ADMIN." }),
});

/**
 * A group claim value as providers send them: Keycloak paths (/team/sub),
 * Azure AD object ids, LDAP-ish names. Printable, no control characters.
 */
export const ssoGroupMappingInput = z
  .object({
    group: z
      .string()
      .trim()
      .min(1, "Enter the group as the provider sends it.")
      .max(256, "Group must be at most 256 characters.")
      // eslint-disable-next-line no-control-regex -- control characters are what this refuses
      .regex(/^[^\u0000-\u001f\u007f]+$/, "Group must not contain control characters."),
    domainId: z.string().min(1).optional(),
    role: z.enum(MEMBERSHIP_ROLES, { message: "Role is OWNER or MEMBER." }).optional(),
    globalRole: z.enum(["GOVERNANCE", "ADMIN"], { message: "Global role is GOVERNANCE or ADMIN." }).optional(),
  })
  .superRefine((v, ctx) => {
    const domainTarget = v.domainId !== undefined || v.role !== undefined;
    if (domainTarget && v.globalRole !== undefined) {
      ctx.addIssue({ code: "custom", path: ["globalRole"], message: "Map a group either to a domain role or to a global role, not both." });
    } else if (domainTarget) {
      if (!v.domainId) ctx.addIssue({ code: "custom", path: ["domainId"], message: "Choose a domain." });
      if (!v.role) ctx.addIssue({ code: "custom", path: ["role"], message: "Choose the domain role." });
    } else if (v.globalRole === undefined) {
      ctx.addIssue({ code: "custom", path: ["domainId"], message: "Choose a domain and role, or a global role." });
    }
  });
export type SsoGroupMappingInput = z.input<typeof ssoGroupMappingInput>;

/** What the provider vouched for at one sign-in. */
export const ssoSignInInput = z.object({
  email: z.string().trim().toLowerCase().email().max(254),
  name: z.string().max(120).trim().default(""),
  groups: z.array(z.string().max(256)).max(1000).default([]),
});
