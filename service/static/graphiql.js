// GraphiQL for /graphql, from the assets this service serves itself (no CDN). Queries and mutations
// go over HTTP with the headers of the Headers tab; subscriptions over graphql-transport-ws, where
// the same Authorization header is sent in connection_init.
const url = window.location.href.split("?")[0];
const socket = new URL(url);
socket.protocol = socket.protocol === "https:" ? "wss:" : "ws:";

function headersOf(text) {
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return {};
  }
}

let currentHeaders = {};
const fetcher = GraphiQL.createFetcher({
  url,
  subscriptionUrl: socket.toString(),
  wsConnectionParams: () => currentHeaders,
});

const EXAMPLE = `# Atout's GraphQL API. Ctrl-Enter runs the query; the Docs button lists every type.
# Seat tokens go in the Headers tab: {"Authorization": "Bearer <token>"}
# The rule options of each game: { rules { kind options { name doc } } }
{
  games(first: 5) {
    nodes { gameId kind status players seats { seat seatKind filled } }
    pageInfo { hasNextPage endCursor }
  }
}
`;

function Atout() {
  const [headers, setHeaders] = React.useState("");
  currentHeaders = headersOf(headers);
  return React.createElement(GraphiQL, {
    fetcher,
    defaultQuery: EXAMPLE,
    headers,
    onEditHeaders: setHeaders,
    shouldPersistHeaders: false,
  });
}

ReactDOM.createRoot(document.getElementById("graphiql")).render(React.createElement(Atout));
