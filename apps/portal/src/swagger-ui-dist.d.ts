// swagger-ui-dist ships no types; the one entry point the API reference uses.
declare module "swagger-ui-dist/swagger-ui-es-bundle.js" {
  const SwaggerUI: (options: {
    domNode: HTMLElement;
    /** Where to load the document from, or the document itself (`spec`). */
    url?: string;
    spec?: object;
    validatorUrl: string | null;
    deepLinking?: boolean;
    tryItOutEnabled?: boolean;
    withCredentials?: boolean;
    /** -1 hides the Schemas section. */
    defaultModelsExpandDepth?: number;
  }) => unknown;
  export default SwaggerUI;
}
