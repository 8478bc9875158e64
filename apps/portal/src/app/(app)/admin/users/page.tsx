import type { Metadata } from "next";
import { adminSection } from "../admin-section";
import { UsersView } from "./users-view";

export const metadata: Metadata = { title: "Users & roles · Admin" };

export default function AdminUsersPage() {
  return adminSection("/admin/users", "user:manage", "Only platform admins manage users and global roles.", () => <UsersView />);
}
