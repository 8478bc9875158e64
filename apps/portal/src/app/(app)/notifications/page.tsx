import { NotificationCentre } from "./notification-centre";

export const metadata = { title: "Notifications · Kappa Mesh" };

export default function NotificationsPage() {
  return <NotificationCentre />;
}
