/**
 * A text field of a submitted form. `FormData.get` answers a string, a File
 * or null; only a string is text (a File named like the field is not).
 */
export function formText(form: FormData, name: string, fallback = ""): string {
  const value = form.get(name);
  return typeof value === "string" ? value : fallback;
}
