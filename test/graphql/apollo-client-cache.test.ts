/**
 * Apollo Client, as a front-end team uses it (InMemoryCache with no configuration), over the real
 * server: a deep report query then a shallow one of the same report must merge in the cache, not
 * replace it ("Cache data may be lost"), and the deep query is then answered from the cache.
 */
import { gql } from 'graphql-tag';
import { typePolicies } from '../../examples/apollo-type-policies';
import { startTestServer, type TestServer } from '../support/server';

// @apollo/client/core is an ES module for TypeScript's resolution: loaded as such.
type ApolloCore = typeof import('@apollo/client/core', { with: { 'resolution-mode': 'import' } });
let apollo: ApolloCore;

const DEEP = gql`
  query Deep($token: UUID!) {
    report(report_id: $token) {
      id
      token
      type
      data {
        vehicle {
          vin
          license {
            number
          }
        }
      }
      dealership {
        id
        name
      }
    }
  }
`;

const SHALLOW = gql`
  query Shallow($token: UUID!) {
    report(report_id: $token) {
      id
      token
      valid
    }
  }
`;

const LIST = gql`
  query List {
    reports(limit: 5) {
      total
      items {
        id
        token
        type
      }
    }
  }
`;

/** A list screen's summary of a report: other parts of `data` and `state` than the deep query's. */
const SUMMARY = gql`
  query Summary($token: UUID!) {
    report(report_id: $token) {
      id
      token
      data {
        vehicle {
          vin
        }
        metadata {
          version
        }
      }
      state {
        folder_sold {
          status
        }
      }
    }
  }
`;

const DEEP_STATE = gql`
  query DeepState($token: UUID!) {
    report(report_id: $token) {
      id
      token
      data {
        vehicle {
          vin
          license {
            number
          }
          specifications {
            brand
            model
          }
        }
      }
      state {
        folder_created {
          status
          date
        }
        folder_estimated {
          status
        }
      }
    }
  }
`;

describe.each(['pglite', 'postgres'] as const)('Apollo Client InMemoryCache on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    apollo = await import('@apollo/client/core');
    server = await startTestServer(kind, { reports: 10 });
  });
  afterAll(() => server.close());

  it('merges a deep and a shallow query of one report, with no warning, and serves the deep one from the cache', async () => {
    const warnings: unknown[][] = [];
    const warn = jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args));
    const error = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void warnings.push(args));
    try {
      const { ApolloClient, HttpLink, InMemoryCache } = apollo;
      const client = new ApolloClient({
        link: new HttpLink({ uri: `${server.url}/graphql`, headers: { 'x-api-key': server.keys[0]! }, fetch }),
        cache: new InMemoryCache(),
      });
      const list = await client.query({ query: LIST });
      const token = (list.data as { reports: { items: { token: string }[] } }).reports.items[0]!.token;
      const deep = await client.query({ query: DEEP, variables: { token } });
      expect((deep.data as { report: { token: string } }).report.token).toBe(token);
      await client.query({ query: SHALLOW, variables: { token }, fetchPolicy: 'network-only' });

      const fromCache = client.readQuery({ query: DEEP, variables: { token } }) as { report: { token: string; data: unknown } } | null;
      expect(fromCache?.report.token).toBe(token);
      expect(fromCache?.report.data).toEqual((deep.data as { report: { data: unknown } }).report.data);
      const cached = await client.query({ query: DEEP, variables: { token }, fetchPolicy: 'cache-only' });
      expect(cached.data).toEqual(deep.data);
      expect(client.cache.extract()[`Report:${token}`]).toBeDefined();
      expect(warnings).toEqual([]);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });

  it('keeps a report complete across a deep and a summary query of data and state, with no warning (typePolicies shipped in examples/)', async () => {
    const warnings: unknown[][] = [];
    const warn = jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args));
    const error = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void warnings.push(args));
    try {
      const { ApolloClient, HttpLink, InMemoryCache } = apollo;
      const client = new ApolloClient({
        link: new HttpLink({ uri: `${server.url}/graphql`, headers: { 'x-api-key': server.keys[0]! }, fetch }),
        cache: new InMemoryCache({ typePolicies }),
      });
      const list = await client.query({ query: LIST });
      const token = (list.data as { reports: { items: { token: string }[] } }).reports.items[0]!.token;
      const deep = await client.query({ query: DEEP_STATE, variables: { token } });
      const summary = await client.query({ query: SUMMARY, variables: { token } });
      expect((summary.data as { report: { token: string } }).report.token).toBe(token);
      // The deep query is still whole in the cache after the summary wrote other parts of data and state.
      const cached = await client.query({ query: DEEP_STATE, variables: { token }, fetchPolicy: 'cache-only' });
      expect(cached.data).toEqual(deep.data);
      const again = await client.query({ query: SUMMARY, variables: { token }, fetchPolicy: 'cache-only' });
      expect(again.data).toEqual(summary.data);
      expect(warnings).toEqual([]);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });
});
