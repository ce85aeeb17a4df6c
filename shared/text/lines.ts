/**
 * The lines of a stream of text chunks: a line ends at `\n` (a `\r` before it dropped), what is
 * left when the stream ends is a line too, and, when `maxChars` is given, text without a `\n` is
 * let go every `maxChars`. Cheaper than node:readline (its interface, events and buffering per
 * line), which had cost the embedded landscape a share of every event: the lines its replicas log
 * and the watch lines of its sources. Unlike readline, a lone `\r` ends no line. The stream must
 * hand over text decoded across chunk boundaries (`setEncoding('utf8')`).
 */
export function lineSplitter(
  onLine: (line: string) => void,
  maxChars = Infinity,
): {
  push: (chunk: string) => void;
  end: () => void;
} {
  let tail = '';
  const emit = (line: string): void => onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  return {
    push: (chunk) => {
      let start = 0;
      for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
        const line = chunk.slice(start, end);
        emit(start === 0 ? tail + line : line);
        if (start === 0) tail = '';
        start = end + 1;
      }
      tail += chunk.slice(start);
      while (tail.length >= maxChars) {
        emit(tail.slice(0, maxChars));
        tail = tail.slice(maxChars);
      }
    },
    end: () => {
      if (tail !== '') emit(tail);
      tail = '';
    },
  };
}
