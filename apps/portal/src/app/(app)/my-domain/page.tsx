import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { MyDomainView } from "./my-domain-view";

export const metadata: Metadata = { title: "My domain" };

export default async function MyDomainPage() {
  await requireActor("/my-domain");
  return (
    <>
      <PageHeader title="My domain" description="Your domains' products, service accounts, and the subscriptions they hold and grant." />
      <MyDomainView />
    </>
  );
}
