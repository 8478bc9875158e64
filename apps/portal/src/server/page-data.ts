import { notFound } from "next/navigation";
import { ForbiddenError, NotFoundError } from "@kappa/catalog";

/**
 * A page's data: a missing entity becomes Next's 404 page; a forbidden one is
 * handed back for the page to explain, so the page renders outside try/catch
 * (React renders JSX later, so a try around it would not catch render errors).
 */
export async function loadPageData<T>(load: Promise<T>): Promise<T | ForbiddenError> {
  try {
    return await load;
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    if (error instanceof ForbiddenError) return error;
    throw error;
  }
}

/** As loadPageData, for pages that let a forbidden entity surface as an error. */
export async function loadOrNotFound<T>(load: Promise<T>): Promise<T> {
  try {
    return await load;
  } catch (error) {
    if (error instanceof NotFoundError) notFound();
    throw error;
  }
}
