/**
 * What GraphiQL shows on a first visit: a page of reports with their relations, and a full report
 * (vehicle and state). The full report is reached through `counter` (a counter-inspection's
 * original report) so that the example runs as is, with no report id to paste first.
 */
export const GRAPHIQL_EXAMPLE_QUERY = `# Vehicle Report API. Put your key in Headers (below),
# then run. The book icon opens the docs.
query LatestReports {
  reports(limit: 5) {
    total
    items {
      token
      created_at
      type
      data { vehicle { vin license_number } }
      dealership { name }
      profile { name email }
      organization { name }
    }
  }
  # A full report, as report(report_id: "...") returns
  # it: the one the latest counter-inspection re-checks.
  counterInspections: reports(type: counter_inspection, limit: 1) {
    items {
      token
      counter {
        token
        data {
          vehicle {
            vin
            specifications { brand model year fuel }
            license { number }
          }
        }
        state {
          folder_created { status date }
          folder_sold { status date }
          counter_inspected { status date }
        }
      }
    }
  }
}
`;
