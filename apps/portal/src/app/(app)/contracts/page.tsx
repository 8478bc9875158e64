import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { ContractUpload } from "./contract-upload";

export const metadata: Metadata = { title: "Apply a data contract" };

export default async function ContractsPage() {
  await requireActor("/contracts");
  return (
    <>
      <PageHeader
        title="Apply a data contract"
        description={<>Upload or paste an Open Data Contract Standard v3 file (YAML or JSON). <strong>Plan</strong> shows what would change; <strong>Apply</strong> registers or updates the product through the same validation, policies, review and provisioning as the form. The CLI does the same: <code>kappa plan -f</code> / <code>kappa apply -f</code>.</>}
      />
      <ContractUpload />
    </>
  );
}
