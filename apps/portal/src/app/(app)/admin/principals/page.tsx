import type { Metadata } from "next";
import { adminSection } from "../admin-section";
import { ReservedPrincipalsView } from "./principals-view";

export const metadata: Metadata = { title: "Reserved principals · Admin" };

export default function AdminPrincipalsPage() {
  return adminSection("/admin/principals", "platform:admin", "Only platform admins see the reserved Kafka principals.", () => <ReservedPrincipalsView />);
}
