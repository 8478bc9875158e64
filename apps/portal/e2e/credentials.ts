import { expect, type APIRequestContext } from "@playwright/test";

/*
 * A service account's password is shown once (then only a rotation issues a
 * new one), and several specs of the worker project produce with the same
 * orders producer account. So each picks it up once, and when another spec
 * picked it up before, rotates it and waits for the worker to issue the new one.
 */
export async function issuedCredentials(request: APIRequestContext, accountId: string): Promise<{ username: string; password: string }> {
  const reveal = () => request.post(`/api/v1/service-accounts/${accountId}/credentials/reveal`);
  const first = await reveal();
  if (first.status() === 200) return (await first.json()) as { username: string; password: string };
  const refusal = await first.text();
  expect(first.status(), refusal).toBe(409);
  expect(refusal).toMatch(/already shown/);
  expect((await request.post(`/api/v1/service-accounts/${accountId}/credentials/rotate`)).status()).toBe(202);
  let credentials: { username: string; password: string } | null = null;
  await expect
    .poll(
      async () => {
        const r = await reveal();
        if (r.status() === 200) credentials = (await r.json()) as { username: string; password: string };
        return r.status();
      },
      { timeout: 90_000, intervals: [1000] },
    )
    .toBe(200);
  if (!credentials) throw new Error("the rotated password was not picked up");
  return credentials;
}
