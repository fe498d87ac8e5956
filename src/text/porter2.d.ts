// wink-porter2-stemmer ships no types: one function, the Snowball English (Porter2) stemmer.
declare module 'wink-porter2-stemmer' {
  /** The Porter2 stem of one lower-cased English word. */
  export default function stem(word: string): string;
}
