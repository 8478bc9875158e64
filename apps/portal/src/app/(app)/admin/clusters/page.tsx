import type { Metadata } from "next";
import { adminSection } from "../admin-section";
import { ClustersView } from "./clusters-view";

export const metadata: Metadata = { title: "Clusters · Admin" };

export default function AdminClustersPage() {
  return adminSection("/admin/clusters", "cluster:manage", "Only platform admins see and register the clusters.", () => <ClustersView />);
}
