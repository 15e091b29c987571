export class TransformersEmbeddings {}; export class TransformersTokenizer {}
