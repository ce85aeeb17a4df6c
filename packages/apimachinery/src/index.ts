/** @landscape/apimachinery: the one home of Kubernetes and Go semantics (filled by the modules below). */
export {};
