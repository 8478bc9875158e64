"use client";

import { useMutation, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { api, type ApiError } from "./api-client";
import type { RevealedCredentials, RuleTestResult, SetQualityRulesAnswer } from "./api-types";
import { queryKeys } from "./query-keys";

/*
 * Every write the UI makes, with exactly the caches it makes stale. A product
 * decision changes that product, the catalog lists, the review queue and the
 * audit log; a subscription decision changes its product's page, the queue,
 * the domains' subscription lists and the audit log.
 */

type ProductAction = { kind: "submit" } | { kind: "approve"; comment?: string } | { kind: "reject"; reason: string } | { kind: "deprecate"; reason: string; sunsetAt: string } | { kind: "retire"; reason: string };

export function useProductAction(productId: string) {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, ProductAction>({
    mutationFn: (action) => {
      const { kind, ...body } = action;
      return api(`/api/v1/products/${productId}/${kind}`, { method: "POST", body });
    },
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.products.detail(productId) }),
        client.invalidateQueries({ queryKey: queryKeys.products.review(productId) }),
        client.invalidateQueries({ queryKey: queryKeys.products.retirement(productId) }),
        client.invalidateQueries({ queryKey: queryKeys.products.lists() }),
        client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
        client.invalidateQueries({ queryKey: queryKeys.myDomains }),
        client.invalidateQueries({ queryKey: queryKeys.audit.all }),
      ]),
  });
}

type SubscriptionAction = { id: string; productId: string } & ({ kind: "approve" } | { kind: "reject"; reason: string } | { kind: "revoke"; reason: string });

export function useSubscriptionAction() {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, SubscriptionAction>({
    mutationFn: (action) => {
      const { kind, id, productId: _productId, ...body } = action;
      return api(`/api/v1/subscriptions/${id}/${kind}`, { method: "POST", body });
    },
    onSuccess: (_data, action) =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.products.detail(action.productId) }),
        client.invalidateQueries({ queryKey: queryKeys.subscriptions.detail(action.id) }),
        client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
        client.invalidateQueries({ queryKey: queryKeys.myDomains }),
        client.invalidateQueries({ queryKey: queryKeys.audit.all }),
      ]),
  });
}

/**
 * Re-queues a failed provisioning task. Which page shows it: the product page
 * (product steps), the subscription page (grant/revoke steps) or the platform
 * view; the audit log gains a "provisioning.retried" event.
 */
export function useRetryTask() {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, { taskId: string; productId?: string; subscriptionId?: string }>({
    mutationFn: ({ taskId }) => api(`/api/v1/provisioning-tasks/${taskId}/retry`, { method: "POST" }),
    onSuccess: (_data, { productId, subscriptionId }) =>
      Promise.all([
        productId ? client.invalidateQueries({ queryKey: queryKeys.products.detail(productId) }) : undefined,
        subscriptionId ? client.invalidateQueries({ queryKey: queryKeys.subscriptions.detail(subscriptionId) }) : undefined,
        client.invalidateQueries({ queryKey: queryKeys.platform }),
        client.invalidateQueries({ queryKey: queryKeys.audit.all }),
      ]),
  });
}

/**
 * The one-time password pickup. A mutation, not a query: the password lives
 * only in this component's mutation state, never in the shared query cache,
 * and is never refetched.
 */
export function useRevealCredentials(shownIn: QueryKey) {
  const client = useQueryClient();
  return useMutation<RevealedCredentials, ApiError, { serviceAccountId: string }>({
    mutationFn: ({ serviceAccountId }) => api<RevealedCredentials>(`/api/v1/service-accounts/${serviceAccountId}/credentials/reveal`, { method: "POST" }),
    // Success or 409 (picked up elsewhere), the page's credential state is stale either way.
    onSettled: () => client.invalidateQueries({ queryKey: shownIn }),
  });
}

/** `shownIn`: the query whose data carries the account's credential state (subscription detail or product observations). */
export function useRotateCredentials(shownIn: QueryKey) {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, { serviceAccountId: string }>({
    mutationFn: ({ serviceAccountId }) => api(`/api/v1/service-accounts/${serviceAccountId}/credentials/rotate`, { method: "POST" }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: shownIn }),
        client.invalidateQueries({ queryKey: queryKeys.platform }),
        client.invalidateQueries({ queryKey: queryKeys.audit.all }),
      ]),
  });
}

/**
 * Admin changes (domains, members, global roles, SSO mapping). Each touches
 * the admin views, what the signed-in user may see elsewhere (domains and
 * roles), and the audit log.
 */
export function useAdminMutation() {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, { method: "POST" | "PATCH" | "DELETE"; path: string; body?: unknown }>({
    mutationFn: ({ method, path, body }) => api(path, { method, body }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.admin.all }),
        client.invalidateQueries({ queryKey: queryKeys.myDomains }),
        client.invalidateQueries({ queryKey: queryKeys.audit.all }),
      ]),
  });
}

/** An owner's request for more partitions, or governance's decision on it. */
export function useChangeRequestAction(productId?: string) {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, { kind: "request"; partitions: number; reason: string } | { kind: "approve"; id: string } | { kind: "reject"; id: string; reason: string }>({
    mutationFn: (action) =>
      action.kind === "request"
        ? api(`/api/v1/products/${productId}/partitions`, { method: "POST", body: { partitions: action.partitions, reason: action.reason } })
        : api(`/api/v1/change-requests/${action.id}/${action.kind}`, { method: "POST", body: action.kind === "reject" ? { reason: action.reason } : undefined }),
    onSuccess: () =>
      Promise.all([
        productId ? client.invalidateQueries({ queryKey: queryKeys.products.detail(productId) }) : client.invalidateQueries({ queryKey: queryKeys.products.details() }),
        client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
        client.invalidateQueries({ queryKey: queryKeys.audit.all }),
      ]),
  });
}

/** An owner's erasure request for the product's encryption keys (issue 29): a change request governance decides. */
export function useRequestKeyErasure(productId: string) {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, { reason: string }>({
    mutationFn: ({ reason }) => api(`/api/v1/products/${productId}/key-erasure`, { method: "POST", body: { reason, irreversible: true } }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.products.detail(productId) }),
        client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
        client.invalidateQueries({ queryKey: queryKeys.audit.all }),
      ]),
  });
}

/** Marks notifications read; the bell and the centre refresh. */
export function useMarkNotificationsRead() {
  const client = useQueryClient();
  return useMutation<{ marked: number; unread: number }, ApiError, { ids: number[] } | { all: true }>({
    mutationFn: (body) => api("/api/v1/notifications/read", { method: "POST", body }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.notifications.all }),
  });
}

/*
 * Schema governance. A proposal or a decision changes the product's version
 * list, its page, the review queue and the audit log; a new major version adds
 * a product (lists, My domain) and deprecates the old one (subscribers' notices).
 */
export function useProposeSchemaVersion(productId: string) {
  const client = useQueryClient();
  return useMutation<{ id: string; version: number }, ApiError, { definition: string }>({
    mutationFn: (body) => api(`/api/v1/products/${productId}/schema-versions`, { method: "POST", body }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.products.schemaVersions(productId) }),
        client.invalidateQueries({ queryKey: queryKeys.products.detail(productId) }),
        client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
        client.invalidateQueries({ queryKey: queryKeys.audit.all }),
      ]),
  });
}

export function usePublishMajorVersion(productId: string) {
  const client = useQueryClient();
  return useMutation<{ id: string; topicName: string }, ApiError, { definition: string; sunsetAt?: string; reason?: string; migrationRules?: { downgrade: string; upgrade?: string } }>({
    mutationFn: (body) => api(`/api/v1/products/${productId}/major-version`, { method: "POST", body }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.products.all }),
        client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
        client.invalidateQueries({ queryKey: queryKeys.myDomains }),
        client.invalidateQueries({ queryKey: queryKeys.subscriptions.all }),
        client.invalidateQueries({ queryKey: queryKeys.audit.all }),
      ]),
  });
}

type SchemaDecision = { kind: "approve"; fingerprint: string; comment?: string } | { kind: "reject"; reason: string };

export function useSchemaVersionDecision(schemaVersionId: string, productId: string) {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, SchemaDecision>({
    mutationFn: ({ kind, ...body }) => api(`/api/v1/schema-versions/${schemaVersionId}/${kind}`, { method: "POST", body }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.schemaVersions.review(schemaVersionId) }),
        client.invalidateQueries({ queryKey: queryKeys.products.schemaVersions(productId) }),
        client.invalidateQueries({ queryKey: queryKeys.products.detail(productId) }),
        client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
        client.invalidateQueries({ queryKey: queryKeys.audit.all }),
      ]),
  });
}

/** "Request the same access on v<N+1>": one click, the old subscription's account and purpose. */
export function useCarryOverSubscription(subscriptionId: string) {
  const client = useQueryClient();
  return useMutation<{ id: string }, ApiError, void>({
    mutationFn: () => api(`/api/v1/subscriptions/${subscriptionId}/successor`, { method: "POST" }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.subscriptions.all }),
        client.invalidateQueries({ queryKey: queryKeys.myDomains }),
        client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
        client.invalidateQueries({ queryKey: queryKeys.products.details() }),
      ]),
  });
}

/** A reviewed change of the product's compatibility mode (with a reason). */
export function useRequestModeChange(productId: string) {
  const client = useQueryClient();
  return useMutation<unknown, ApiError, { mode: string; reason: string }>({
    mutationFn: (body) => api(`/api/v1/products/${productId}/compatibility-mode`, { method: "POST", body }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.products.schemaVersions(productId) }),
        client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
        client.invalidateQueries({ queryKey: queryKeys.audit.all }),
      ]),
  });
}

/** A data-quality rule as the rules API takes it (issue 29). */
export interface QualityRuleBody {
  name: string;
  description: string;
  kind: string;
  expression: string;
  mode: string;
  onFailure: string;
  tags: string[];
}

/** The product's whole rule list: a draft takes it at once, a live product's change waits for review. */
export function useSetQualityRules(productId: string) {
  const client = useQueryClient();
  return useMutation<SetQualityRulesAnswer, ApiError, { rules: QualityRuleBody[]; encryptPii?: boolean; reason?: string }>({
    mutationFn: (body) => api(`/api/v1/products/${productId}/rules`, { method: "PUT", body }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.products.detail(productId) }),
        client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
        client.invalidateQueries({ queryKey: queryKeys.audit.all }),
      ]),
  });
}

/** The rule test: edited rules against the topic's newest records; changes nothing but the audit log. */
export function useTestQualityRules(productId: string) {
  const client = useQueryClient();
  return useMutation<RuleTestResult, ApiError, { rules: QualityRuleBody[] }>({
    mutationFn: (body) => api(`/api/v1/products/${productId}/rules/test`, { method: "POST", body }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.audit.all }),
  });
}
