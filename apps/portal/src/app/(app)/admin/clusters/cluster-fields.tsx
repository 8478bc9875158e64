"use client";

import { Field, inputClass } from "@/components/ui";

const DAY_MS = 86_400_000;

/** The connection and bounds fields both cluster forms (register, edit) show; the environment name is the register form's own. */
export interface ClusterFormFields {
  bootstrap: string;
  securityProtocol: string;
  saslMechanism: string;
  adminUser: string;
  adminPassword: string;
  maxPartitions: string;
  minRetentionDays: string;
}

/** SASL settings apply only to the SASL_* protocols. */
export function usesSasl(form: Pick<ClusterFormFields, "securityProtocol">): boolean {
  return form.securityProtocol.startsWith("SASL_");
}

/** The minimum retention entered in days, in milliseconds; null when empty. */
export function minRetentionMsOf(form: Pick<ClusterFormFields, "minRetentionDays">): number | null {
  return form.minRetentionDays ? Math.round(Number(form.minRetentionDays) * DAY_MS) : null;
}

/** Days for the form from a stored minimum retention (ms, as the API sends it). */
export function retentionDaysOf(minRetentionMs: string | number | null): string {
  return minRetentionMs === null ? "" : String(Number(minRetentionMs) / DAY_MS);
}

export function ClusterFields({
  idPrefix,
  form,
  set,
  errors,
  hints,
}: {
  /** Element ids are `<idPrefix>-bootstrap` and so on: each form keeps its own. */
  idPrefix: string;
  form: ClusterFormFields;
  set: (key: keyof ClusterFormFields) => (e: { target: { value: string } }) => void;
  errors: Record<string, string[] | undefined>;
  hints: { adminUser?: string; passwordLabel: string; password: string; maxPartitions: string };
}) {
  const id = (name: string) => `${idPrefix}-${name}`;
  const sasl = usesSasl(form);
  return (
    <>
      <Field id={id("bootstrap")} label="Bootstrap servers" hint="host:port, comma-separated." errors={errors.bootstrap}>
        {(p) => <input {...p} className={`${inputClass} font-mono`} value={form.bootstrap} onChange={set("bootstrap")} required autoComplete="off" />}
      </Field>
      <Field id={id("protocol")} label="Security protocol" errors={errors.securityProtocol}>
        {(p) => (
          <select {...p} className={inputClass} value={form.securityProtocol} onChange={set("securityProtocol")}>
            {["SASL_SSL", "SASL_PLAINTEXT", "SSL", "PLAINTEXT"].map((v) => <option key={v} value={v}>{v}</option>)}
          </select>
        )}
      </Field>
      {sasl && (
        <Field id={id("mechanism")} label="SASL mechanism" errors={errors.saslMechanism}>
          {(p) => (
            <select {...p} className={inputClass} value={form.saslMechanism} onChange={set("saslMechanism")}>
              {["scram-sha-512", "scram-sha-256", "plain"].map((v) => <option key={v} value={v}>{v}</option>)}
            </select>
          )}
        </Field>
      )}
      {sasl && (
        <Field id={id("admin-user")} label="Admin user" hint={hints.adminUser} errors={errors.adminUser}>
          {(p) => <input {...p} className={inputClass} value={form.adminUser} onChange={set("adminUser")} autoComplete="off" />}
        </Field>
      )}
      {sasl && (
        <Field id={id("admin-password")} label={hints.passwordLabel} hint={hints.password} errors={errors.adminPassword}>
          {(p) => <input {...p} type="password" className={inputClass} value={form.adminPassword} onChange={set("adminPassword")} autoComplete="new-password" />}
        </Field>
      )}
      <Field id={id("max-partitions")} label="Maximum partitions (optional)" hint={hints.maxPartitions} errors={errors.maxPartitions}>
        {(p) => <input {...p} type="number" min={1} inputMode="numeric" className={inputClass} value={form.maxPartitions} onChange={set("maxPartitions")} />}
      </Field>
      <Field id={id("min-retention")} label="Minimum retention in days (optional)" errors={errors.minRetentionMs}>
        {(p) => <input {...p} type="number" min={0} step="any" inputMode="decimal" className={inputClass} value={form.minRetentionDays} onChange={set("minRetentionDays")} />}
      </Field>
    </>
  );
}
