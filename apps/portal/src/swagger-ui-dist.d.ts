// swagger-ui-dist ships no types; the one entry point the API reference uses.
declare module "swagger-ui-dist/swagger-ui-es-bundle.js" {
  const SwaggerUI: (options: { domNode: HTMLElement; url: string; validatorUrl: string | null; deepLinking?: boolean; tryItOutEnabled?: boolean; withCredentials?: boolean }) => unknown;
  export default SwaggerUI;
}
