import type { Metadata } from "next";
import { adminSection } from "../admin-section";
import { DomainsView } from "./domains-view";

export const metadata: Metadata = { title: "Domains · Admin" };

export default function AdminDomainsPage() {
  return adminSection(
    "/admin/domains",
    "domain:manage",
    "Only platform admins manage domains. Domain owners manage their members from My domain.",
    () => <DomainsView />,
  );
}
