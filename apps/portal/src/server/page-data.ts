import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { ForbiddenError, isOverload, NotFoundError, OVERLOAD_RETRY_AFTER_SECONDS } from "@kappa/catalog";
import { busyPath, markOverloaded } from "@/lib/busy";
import { PATH_HEADER } from "@/lib/request-path";

/**
 * A page whose data load found the database pool saturated goes to /busy
 * (503 + Retry-After, then back to this page) instead of Next's error page,
 * and pages shed load for the Retry-After (src/lib/busy.ts). Returns when
 * the error is something else.
 */
export async function busyOnOverload(error: unknown, returnTo?: string): Promise<void> {
  if (!isOverload(error)) return;
  markOverloaded(OVERLOAD_RETRY_AFTER_SECONDS);
  redirect(busyPath(returnTo ?? (await headers()).get(PATH_HEADER) ?? "/"));
}

/**
 * A page's data: a missing entity becomes Next's 404 page; a forbidden one is
 * handed back for the page to explain, so the page renders outside try/catch
 * (React renders JSX later, so a try around it would not catch render errors);
 * an overload becomes the busy page (503).
 */
export async function loadPageData<T>(load: Promise<T>): Promise<T | ForbiddenError> {
  try {
    return await load;
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    if (error instanceof ForbiddenError) return error;
    await busyOnOverload(error);
    throw error;
  }
}

/** As loadPageData, for pages that let a forbidden entity surface as an error. */
export async function loadOrNotFound<T>(load: Promise<T>): Promise<T> {
  try {
    return await load;
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    await busyOnOverload(error);
    throw error;
  }
}
