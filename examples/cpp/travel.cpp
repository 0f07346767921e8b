// SPDX-License-Identifier: MIT
// travel.cpp - the reference documents' server (../shared/seeds) in C++
// with mcp/mcp.hpp: flights from an embedded SQLite database, customer
// lookup and update, an export that runs as a task and survives restarts
// (SQLite task store; an export a restart interrupted is resumed), and a
// sales report linked from a tool result with a resource_link.
//
//   mcp-travel-cpp [--stdio | --http HOST:PORT]    (mcp::run's options)
//   TRAVEL_DB      the database (default travel.db, created and seeded)
//   TRAVEL_TASKS   the task store (default sqlite:travel-tasks.db)
//   TRAVEL_ROW_MS  how long the export takes per row (default 100 ms)
#include <mcp/mcp.hpp>

#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

namespace travel {

// ---- the database ------------------------------------------------------------------

const char schema_and_seed[] =
    "PRAGMA journal_mode=WAL;"
    "CREATE TABLE IF NOT EXISTS flights(carrid TEXT, connid INTEGER, fldate TEXT,"
    " price REAL, currency TEXT, planetype TEXT, PRIMARY KEY(carrid, connid, fldate));"
    "CREATE TABLE IF NOT EXISTS customers(id TEXT PRIMARY KEY, name TEXT, city TEXT,"
    " email TEXT);"
    "CREATE TABLE IF NOT EXISTS orders(id TEXT PRIMARY KEY, customer_id TEXT,"
    " period TEXT, amount REAL);"
    // what each export task was asked for, so a restart can redo it
    "CREATE TABLE IF NOT EXISTS exports(task_id TEXT PRIMARY KEY, tbl TEXT);"
    "INSERT OR IGNORE INTO flights VALUES"
    " ('AA',17,'2026-12-01',422.94,'USD','747-400'),"
    " ('AA',17,'2026-12-08',422.94,'USD','747-400'),"
    " ('LH',400,'2026-12-02',666.00,'EUR','A340-600'),"
    " ('LH',400,'2026-12-09',666.00,'EUR','A340-600'),"
    " ('BA',117,'2026-12-06',512.10,'GBP','777-300ER');"
    "INSERT OR IGNORE INTO customers VALUES"
    " ('C001','Ada Lovelace','London','ada@example.com'),"
    " ('C002','Grace Hopper','Arlington',NULL),"
    " ('C003','Konrad Zuse','Berlin','konrad@example.com');"
    "INSERT OR IGNORE INTO orders VALUES"
    " ('O1001','C001','2026-Q3',199.99), ('O1002','C002','2026-Q3',45.00),"
    " ('O1003','C003','2026-Q4',1200.00);";

// One connection in serialized mode (SQLITE_OPEN_FULLMUTEX): handlers run
// on several threads at once.
class database {
public:
  explicit database(const std::string &path) {
    if (sqlite3_open_v2(path.c_str(), &db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK ||
        sqlite3_exec(db_, schema_and_seed, nullptr, nullptr, nullptr) != SQLITE_OK)
      throw std::runtime_error("database " + path + ": " + sqlite3_errmsg(db_));
    sqlite3_busy_timeout(db_, 5000);
  }
  ~database() { sqlite3_close(db_); }
  database(const database &) = delete;
  database &operator=(const database &) = delete;

  // Runs sql with text parameters; row(statement) per result row.
  template <class Row>
  void query(const char *sql, const std::vector<std::string> &params, Row row) {
    sqlite3_stmt *st = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &st, nullptr) != SQLITE_OK)
      throw std::runtime_error(sqlite3_errmsg(db_));
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt *)> owner(st, &sqlite3_finalize);
    for (std::size_t i = 0; i < params.size(); i++)
      sqlite3_bind_text(st, static_cast<int>(i + 1), params[i].c_str(), -1, SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
      row(st);
    if (rc != SQLITE_DONE)
      throw std::runtime_error(sqlite3_errmsg(db_));
  }
  int changes() { return sqlite3_changes(db_); }

private:
  sqlite3 *db_ = nullptr;
};

std::string text(sqlite3_stmt *st, int column) {
  const unsigned char *t = sqlite3_column_text(st, column);
  return t ? reinterpret_cast<const char *>(t) : "";
}

// ---- types -------------------------------------------------------------------------

struct flight_query {
  std::string carrier;
  int connection;
};
inline mcp::fields<flight_query> describe(flight_query *) {
  return {{"carrid", &flight_query::carrier, "Airline code", mcp::pattern("^[A-Z0-9]{2}$")},
          {"connid", &flight_query::connection, "Connection number", mcp::range(1, 9999)}};
}
struct flight {
  std::string date;
  double price;
  std::string currency;
  std::string plane;
};
inline mcp::fields<flight> describe(flight *) {
  return {{"fldate", &flight::date, "Date", mcp::format("date")},
          {"price", &flight::price, "Price"},
          {"currency", &flight::currency, "ISO 4217 code"},
          {"planetype", &flight::plane, "Aircraft"}};
}
struct flights {
  std::vector<flight> list;
};
inline mcp::fields<flights> describe(flights *) {
  return {{"flights", &flights::list, "Scheduled flights of the connection"}};
}

struct customer_ref {
  std::string id;
};
inline mcp::fields<customer_ref> describe(customer_ref *) {
  return {{"customer_id", &customer_ref::id, "Customer ID such as C001", mcp::pattern("^C[0-9]{3}$")}};
}
struct customer {
  std::string id, name, city;
  std::optional<std::string> email;
};
inline mcp::fields<customer> describe(customer *) {
  return {{"id", &customer::id, "Customer ID"},
          {"name", &customer::name, "Name"},
          {"city", &customer::city, "City"},
          {"email", &customer::email, "E-mail, when known"}};
}
struct customer_update {
  std::string id;
  std::optional<std::string> city, email;
};
inline mcp::fields<customer_update> describe(customer_update *) {
  return {{"customer_id", &customer_update::id, "Customer ID", mcp::pattern("^C[0-9]{3}$")},
          {"city", &customer_update::city, "New city", mcp::min_length(1)},
          {"email", &customer_update::email, "New e-mail", mcp::format("email")}};
}

enum class table { customers, flights, orders };
inline mcp::names<table> describe(table *) {
  return {{table::customers, "customers"}, {table::flights, "flights"}, {table::orders, "orders"}};
}
struct export_request {
  table what;
};
inline mcp::fields<export_request> describe(export_request *) {
  return {{"table", &export_request::what, "What to export"}};
}
struct export_result {
  std::string file;
  int rows;
};
inline mcp::fields<export_result> describe(export_result *) {
  return {{"file", &export_result::file, "The CSV file written"},
          {"rows", &export_result::rows, "Rows written"}};
}

struct report_request {
  std::string period;
};
inline mcp::fields<report_request> describe(report_request *) {
  return {{"period", &report_request::period, "Period such as 2026-Q3",
           mcp::pattern("^[0-9]{4}-Q[1-4]$")}};
}

// ---- the export: a task, resumable after a restart ---------------------------------

const char *table_name(table t) {
  return t == table::customers ? "customers" : t == table::flights ? "flights" : "orders";
}

// Threads that finish resumed exports; joined before the server goes.
struct joiner {
  std::vector<std::thread> threads;
  joiner() = default;
  joiner(const joiner &) = delete;
  joiner &operator=(const joiner &) = delete;
  ~joiner() {
    for (std::thread &t : threads)
      t.join();
  }
};

// Writes the table as CSV, slowly enough to be watched (progress) and
// cancelled; stops early when cancelled() says so.
template <class Cancelled, class Progress>
export_result export_table(database &db, table t, Cancelled cancelled, Progress progress) {
  const char *row_ms = std::getenv("TRAVEL_ROW_MS");
  const auto pause = std::chrono::milliseconds(row_ms ? std::atoi(row_ms) : 100);
  const std::string file = std::string("export-") + table_name(t) + ".csv";
  std::ofstream out(file);
  int rows = 0;
  db.query((std::string("SELECT * FROM ") + table_name(t)).c_str(), {}, [&](sqlite3_stmt *st) {
    if (cancelled())
      return;
    for (int c = 0; c < sqlite3_column_count(st); c++)
      out << (c ? "," : "") << text(st, c);
    out << "\n";
    std::this_thread::sleep_for(pause);
    progress(++rows);
  });
  if (cancelled())
    throw std::runtime_error("export cancelled after " + std::to_string(rows) + " rows");
  return {file, rows};
}

} // namespace travel

int main(int argc, char **argv) {
  using namespace travel;
  const char *db_path = std::getenv("TRAVEL_DB");
  const char *store_spec = std::getenv("TRAVEL_TASKS");
  database db(db_path ? db_path : "travel.db");
  int rc;
  {
    mcp::server server("travel", "1.0.0");
    server.instructions("Flights, customers and their orders; exports run as tasks.");

    server.add(mcp::tool("get_flight_details", "Look up the scheduled flights of a connection",
                         [&db](const flight_query &q) {
                           flights out;
                           db.query("SELECT fldate, price, currency, planetype FROM flights"
                                    " WHERE carrid = ?1 AND connid = ?2 ORDER BY fldate",
                                    {q.carrier, std::to_string(q.connection)}, [&](sqlite3_stmt *st) {
                                      out.list.push_back({text(st, 0), sqlite3_column_double(st, 1),
                                                          text(st, 2), text(st, 3)});
                                    });
                           return out;
                         })
                   .read_only());

    server.add(mcp::tool("get_customer_info", "Retrieve customer information by ID",
                         [&db](const customer_ref &ref) {
                           std::optional<customer> found;
                           db.query("SELECT id, name, city, email FROM customers WHERE id = ?1",
                                    {ref.id}, [&](sqlite3_stmt *st) {
                                      found = customer{text(st, 0), text(st, 1), text(st, 2),
                                                       std::nullopt};
                                      if (sqlite3_column_type(st, 3) != SQLITE_NULL)
                                        found->email = text(st, 3);
                                    });
                           if (!found)
                             throw std::invalid_argument("no customer " + ref.id); // isError
                           return *found;
                         })
                   .read_only());

    server.add(mcp::tool("update_customer", "Update customer information",
                         [&db](const customer_update &u) {
                           int changed = 0;
                           if (u.city) {
                             db.query("UPDATE customers SET city = ?2 WHERE id = ?1", {u.id, *u.city},
                                      [](sqlite3_stmt *) {});
                             changed += db.changes();
                           }
                           if (u.email) {
                             db.query("UPDATE customers SET email = ?2 WHERE id = ?1",
                                      {u.id, *u.email}, [](sqlite3_stmt *) {});
                             changed += db.changes();
                           }
                           if (!changed)
                             throw std::invalid_argument("nothing updated for " + u.id);
                           return "Customer " + u.id + " updated.";
                         })
                   .hint(MCP_HINT_DESTRUCTIVE, true));

    server.add(mcp::tool("start_export", "Export a table as CSV (runs as a task)",
                         [&db](const export_request &r, mcp::call &call) {
                           db.query("INSERT OR REPLACE INTO exports VALUES(?1, ?2)",
                                    {call.task_id(), table_name(r.what)}, [](sqlite3_stmt *) {});
                           return export_table(db, r.what, [&] { return call.cancelled(); },
                                               [&](int rows) { call.progress(rows); });
                         })
                   .task(mcp::task_support::required));

    server.add(mcp::tool("build_report", "Build a sales report for a period and link to it",
                         [](const report_request &r, mcp::call &call) {
                           call.result()
                               .text("Sales report for " + r.period + " is ready.")
                               .resource_link("reports://sales/" + r.period, "sales-report",
                                              "text/plain");
                         }));
    server.add(mcp::resource_template("reports://sales/{period}", "sales-report",
                                      [&db](const mcp::args &vars) {
                                        double total = 0;
                                        int orders = 0;
                                        db.query("SELECT amount FROM orders WHERE period = ?1",
                                                 {vars["period"]}, [&](sqlite3_stmt *st) {
                                                   total += sqlite3_column_double(st, 0);
                                                   orders++;
                                                 });
                                        std::ostringstream out;
                                        out << "Sales " << vars["period"] << ": " << orders
                                            << " orders, " << std::fixed
                                            << std::setprecision(2) << total << " total";
                                        return out.str();
                                      })
                   .description("Sales per quarter")
                   .mime_type("text/plain"));

    // A restart interrupted an export: run it again and complete the task.
    joiner resumed; // after the server: joined before it is destroyed
    mcp::task_options options;
    options.on_resume = [&db, &resumed](mcp::tasks &tasks, const mcp::json &task) {
      std::string id = task["taskId"].string();
      std::optional<table> what;
      db.query("SELECT tbl FROM exports WHERE task_id = ?1", {id}, [&](sqlite3_stmt *st) {
        what = mcp::from_json<table>(mcp::to_json(text(st, 0)));
      });
      // Killed before the handler wrote its row: the tools/call it came
      // from is stored with the task (params.arguments.table).
      mcp::json args = task["params"]["arguments"];
      if (!what && task["params"]["name"].string() == "start_export" && args["table"])
        what = mcp::from_json<table>(args["table"]);
      if (!what)
        return false; // not ours to redo: the library fails it
      mcp::tasks keep = tasks; // the server's manager: valid while it lives
      resumed.threads.emplace_back([&db, keep, id, t = *what]() mutable {
        mcp::result r = mcp::result::make();
        try {
          export_result done = export_table(db, t, [] { return false; }, [](int) {});
          r.text("Exported " + std::to_string(done.rows) + " rows to " + done.file +
                 " (resumed after a restart)");
        } catch (const std::exception &e) {
          r.error(e.what());
        }
        try {
          keep.complete(id, r);
        } catch (const std::exception &e) { // e.g. cancelled meanwhile
          std::cerr << "travel: resumed export " << id << ": " << e.what() << "\n";
        }
      });
      return true;
    };
    server.enable_tasks(mcp::store::open(store_spec ? store_spec : "sqlite:travel-tasks.db"),
                        options);
    rc = mcp::run(server, argc, argv);
  }
  return rc;
}
