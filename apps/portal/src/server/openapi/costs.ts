import { z } from "zod";

/* Response schemas of the showback and chargeback routes (issue 33), for the OpenAPI document. */

const amount = z.string().regex(/^-?\d+\.\d{6}$/).meta({ description: "An amount in the price list's currency, exact to six decimals." });
const trend = z.array(z.object({ month: z.string(), total: amount })).meta({ description: "This month and the five before it." });

export const costsResponse = z
  .object({
    month: z.string().meta({ description: "YYYY-MM (UTC)." }),
    currency: z.string(),
    prices: z.object({ currency: z.string(), hotStorageGbMonth: z.number(), tieredStorageGbMonth: z.number(), gbIn: z.number(), gbOut: z.number(), partitionHour: z.number() }),
    chargeback: z.enum(["consumers", "producer"]).meta({ description: "consumers: a product's cost is shared by its consuming domains by bytes read; producer: the producing domain pays." }),
    policyVersion: z.number().int(),
    scope: z.enum(["platform", "domains"]).meta({ description: "platform: an admin's view of every domain; domains: the caller's own domains." }),
    domains: z.array(
      z.object({
        id: z.string(),
        slug: z.string(),
        name: z.string(),
        total: amount.meta({ description: "producerShare + chargedToThisDomain." }),
        ownProductsCost: amount,
        producerShare: amount,
        chargedToOthers: amount,
        chargedToThisDomain: amount,
        products: z.array(
          z.object({
            id: z.string(),
            name: z.string(),
            topic: z.string().nullable(),
            usage: z.object({ bytesIn: z.number(), bytesOut: z.number(), hotStorageGbMonth: z.number(), tieredStorageGbMonth: z.number(), partitionHours: z.number() }),
            cost: z.object({ hotStorage: amount, tieredStorage: amount, in: amount, out: amount, partitions: amount, total: amount }),
            producerShare: amount,
            split: z.array(z.object({ domainId: z.string(), slug: z.string(), bytesRead: z.number(), amount })),
            trend,
          }),
        ),
        charges: z.array(z.object({ productId: z.string(), productName: z.string(), topic: z.string().nullable(), producerDomain: z.string(), bytesRead: z.number(), amount })),
        trend,
      }),
    ),
    total: amount.meta({ description: "The sum over `domains`." }),
    platformTotal: amount.nullable().meta({ description: "Every product's cost (admins; null for others). Equals `total` for admins." }),
    trend,
  })
  .meta({ id: "Costs" });

export const productCostResponse = z.object({
  month: z.string(),
  currency: z.string(),
  chargeback: z.enum(["consumers", "producer"]),
  total: amount,
  producerShare: amount,
  chargedToConsumers: amount,
  trend,
});
