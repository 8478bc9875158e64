import { formatDateTime } from "@/lib/format";
import { Card } from "./ui";

/**
 * The product's Open Data Contract Standard file: download it (YAML or JSON,
 * the same document `GET /api/v1/products/:id/contract` serves), and — when a
 * contract file drives the product — say so and where it lives.
 */
export function ContractCard({ product }: { product: { id: string; contractSource: string | null; contractAppliedAt: string | null } }) {
  const base = `/api/v1/products/${product.id}/contract?download`;
  return (
    <Card title="Data contract">
      {product.contractSource ? (
        <p className="text-sm text-slate-800" data-testid="contract-managed">
          Managed by a contract: <span className="break-all font-mono text-xs">{product.contractSource}</span>
          {product.contractAppliedAt && <span className="block text-xs text-slate-500">last applied {formatDateTime(product.contractAppliedAt)}</span>}
          <span className="mt-1 block text-xs text-slate-500">Change the file and run <code>kappa apply</code>; edits here are overwritten by the next apply.</span>
        </p>
      ) : (
        <p className="text-sm text-slate-600">Edited in the portal. Export the contract to manage it from Git with <code>kappa apply</code>.</p>
      )}
      <div className="mt-3 flex flex-wrap gap-3 text-sm">
        <a className="font-medium text-indigo-700 hover:underline" href={`${base}&format=yaml`} download>Download ODCS (YAML)</a>
        <a className="font-medium text-indigo-700 hover:underline" href={base} download>JSON</a>
      </div>
    </Card>
  );
}
