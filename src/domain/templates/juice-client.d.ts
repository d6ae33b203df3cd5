// juice ships types for its main entry only; its client entry (no resource fetching) has the same inliner.
declare module 'juice/client.js' {
  import juice from 'juice';
  const client: (html: string, options?: juice.Options) => string;
  export default client;
}
