// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

// `CoreData` re-exports Strata under Apple's module name. It is only offered where
// Apple's own framework is absent, so that it never shadows the real one; the example, which
// imports it, is built there too.
#if canImport(Darwin)
    let coreDataProducts: [Product] = []
    let coreDataTargets: [Target] = []
    let toolTestDependencies: [Target.Dependency] = []
#else
    // `strata port`'s tests compile the hand-fixed fixture (Tests/StrataToolTests/PortFixed*)
    // against `import CoreData`, which exists on Linux only.
    let toolTestDependencies: [Target.Dependency] = ["CoreData"]
    // `import CoreData` and `import CloudKit` for apps (IntegrationTests/UserApp builds one
    // from outside, as a user's package sees these products).
    let coreDataProducts: [Product] = [
        .library(name: "CoreData", targets: ["CoreData"]),
        .library(name: "CloudKit", targets: ["CloudKit"]),
        .library(name: "SwiftData", targets: ["SwiftData"]),
    ]
    let coreDataTargets: [Target] = [
        .target(name: "CoreData", dependencies: ["Strata"]),
        // `import CloudKit` where Apple's is absent: the few CloudKit types seed 004 uses, answered
        // by a Strata sync server (the server of the NSPersistentCloudKitContainer registered
        // with the container identifier).
        .target(name: "CloudKit", dependencies: ["Strata", "StrataSyncProtocol"]),
        // `import SwiftData` where Apple's is absent: `@Model` classes, `ModelContainer` and
        // `ModelContext` over Strata's engine and store files (one engine, two APIs).
        .target(name: "SwiftData", dependencies: ["Strata", "StrataMacros", "CStrataRuntime"]),
        // The one entry point of the Swift runtime SwiftData's registry of models calls
        // (`swift_tryRetain`, what loading a weak reference does), declared for Swift.
        .target(name: "CStrataRuntime"),
        // SwiftData's tests; the Apple-style code of Tests/SwiftDataTests/AppleStyle is also
        // compiled in Swift 5 language mode by SwiftDataSwift5Tests (a symbolic link to it).
        .testTarget(
            name: "SwiftDataTests",
            dependencies: ["SwiftData", "CoreData", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(
            name: "SwiftDataSwift5Tests", dependencies: ["SwiftData", "CoreData"],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        // The sync client against a real `strata-sync` on a throw-away PostgreSQL (skipped with a
        // notice where PostgreSQL is absent).
        .testTarget(
            name: "SyncClientTests",
            dependencies: ["CoreData", "CloudKit", "SwiftData", "StrataSyncProtocol", "SyncTestSupport"]),
        .executableTarget(name: "model-tour", dependencies: ["CoreData"], path: "Examples/ModelTour"),
        .executableTarget(name: "swiftdata-tour", dependencies: ["SwiftData", "CoreData"], path: "Examples/SwiftDataTour"),
        // Source compatibility (COMPAT.md): app-style Core Data code, compiled in Swift 5 and in
        // Swift 6 language mode. SwiftPM lets only one target own a file, so the text is kept
        // once, in Tests/CompatSwift5Tests/Shared, and Tests/CompatSwift6Tests/Shared is a
        // symbolic link to that folder (git stores the link; SwiftPM follows it). Each target has
        // its own model (TodosSwift5, TodosSwift6) whose class names carry the module, because
        // Strata resolves a model's class names process-wide and both targets run in one test
        // process with classes of the same names.
        .testTarget(
            name: "CompatSwift5Tests",
            dependencies: ["CoreData"],
            swiftSettings: [.swiftLanguageMode(.v5)],
            plugins: ["StrataModelPlugin"]
        ),
        .testTarget(name: "CompatSwift6Tests", dependencies: ["CoreData"], plugins: ["StrataModelPlugin"]),
        // COMPAT 8–11: the same Apple-style files, which import only CoreData (a DAO, predicates
        // taken apart and rebuilt, a model loaded as apps load theirs), in Swift 5 and Swift 6
        // mode, with Strata's plugin and without it (nor any alias line). The text is kept once,
        // in Tests/CoreDataImportSwift5Tests/Shared, which the other three link to; the two targets
        // without the plugin share their hand-written NoteEntity the same way (NoPlugin/).
        .testTarget(
            name: "CoreDataImportSwift5Tests",
            dependencies: ["CoreData"],
            swiftSettings: [.swiftLanguageMode(.v5)],
            plugins: ["StrataModelPlugin"]
        ),
        .testTarget(name: "CoreDataImportSwift6Tests", dependencies: ["CoreData"], plugins: ["StrataModelPlugin"]),
        .testTarget(
            name: "CoreDataImportNoPluginSwift5Tests",
            dependencies: ["CoreData"],
            resources: [.copy("NotesNoPlugin5.xcdatamodeld")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "CoreDataImportNoPluginSwift6Tests",
            dependencies: ["CoreData"],
            resources: [.copy("NotesNoPlugin6.xcdatamodeld")]
        ),
        // The reference application (SPEC §4): the to-do model, DAOs and repositories, the `todo`
        // command line, and their tests (the CLI tests run the built `todo`). Its model's class
        // names carry the module (`TodoKit.TodoEntity`) for the reason given above: the test
        // process also holds the compatibility targets' `TodoEntity` and `TagEntity`.
        .target(name: "TodoKit", dependencies: ["CoreData"], plugins: ["StrataModelPlugin"]),
        // `todo serve`: the JSON API and the web page on Hummingbird, over the repositories. A
        // library, so that its tests start the server in their own process.
        .target(
            name: "TodoWeb",
            dependencies: [
                "TodoKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                // Graceful shutdown reaches the live list's endless event streams through it.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "todo",
            dependencies: ["TodoKit", "TodoWeb", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The to-do list's data layer a second time, in SwiftData (`@Model` classes over the
        // same store file as TodoKit's Core Data stack).
        .target(name: "TodoSwiftData", dependencies: ["TodoKit", "SwiftData"]),
        .testTarget(name: "TodoKitTests", dependencies: ["TodoKit", "TodoSwiftData"]),
        .testTarget(name: "TodoCLITests", dependencies: ["TodoKit", "todo", "SyncTestSupport"]),
        // The API over HTTP on loopback, and the page in headless Chromium through WebDriver
        // (skipped with a notice where Chromium is absent, unless STRATA_REQUIRE_BROWSER=1).
        .testTarget(name: "TodoWebTests", dependencies: ["TodoKit", "TodoWeb"]),
        // The benchmarks of SPEC §5 (BENCHMARKS.md): SQLite's C API, GRDB and Strata on the same
        // work. `import SQLite3` exists only on Apple's platforms, hence CSQLite.
        .systemLibrary(name: "CSQLite", path: "Benchmarks/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "strata-bench",
            // SwiftData: S1, the same rows through `ModelContext` as through the Core Data API.
            dependencies: ["Strata", "SwiftData", "CSQLite", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks/StrataBench"
        ),
    ]
#endif

// `strata model|store|port`: models and stores from the command line.
let strataToolDependencies: [Target.Dependency] = [
    "Strata", "StrataCodegen", .product(name: "ArgumentParser", package: "swift-argument-parser"),
    // `strata port` reads Swift sources with the real parser, not patterns.
    .product(name: "SwiftParser", package: "swift-syntax"),
    .product(name: "SwiftSyntax", package: "swift-syntax"),
    // `strata store check` reads the tables themselves (Core Data's invariants).
    .product(name: "GRDB", package: "GRDB.swift"),
]

// Fuzzing (Fuzz/): StrataFuzzing holds one entry point per kind of input Strata reads; the
// StrataFuzzingTests replay the committed seeds and crash reproducers through them on every
// `swift test`. `scripts/fuzz` builds the libFuzzer harness, `strata-fuzz`, from this manifest
// with STRATA_FUZZING=1, in a build folder of its own:
// - Strata's own modules get libFuzzer's coverage counters and AddressSanitizer (whose leak
//   checker reports leaks), here rather than with `swift build --sanitize`, which would also
//   instrument the macro plugin and break its link; and testability, for the entry points'
//   @testable imports.
let fuzzing = Context.environment["STRATA_FUZZING"] == "1"
let fuzzInstrumentation: [SwiftSetting] =
    fuzzing
    ? [
        .unsafeFlags([
            "-sanitize=fuzzer,address", "-sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table",
            "-enable-testing",
        ])
    ] : []
// The tool's commands are a library, so the fuzzing harness links the code it drives; the
// executable is only their entry point.
let strataToolTargets: [Target] = [
    .target(name: "StrataToolKit", dependencies: strataToolDependencies, swiftSettings: fuzzInstrumentation),
    .executableTarget(name: "StrataTool", dependencies: ["StrataToolKit"]),
]
let fuzzTargets: [Target] =
    [
        .target(
            name: "StrataFuzzing",
            dependencies: [
                "Strata", "StrataSyncProtocol", "StrataToolKit", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Fuzz/StrataFuzzing",
            swiftSettings: fuzzInstrumentation
        ),
        .testTarget(name: "StrataFuzzingTests", dependencies: ["StrataFuzzing"]),
    ]
    + (fuzzing
        ? [
            // lld: gold fails to link libFuzzer's runtime beside an entry point of SwiftPM's.
            .executableTarget(
                name: "strata-fuzz", dependencies: ["StrataFuzzing"], path: "Fuzz/StrataFuzz",
                swiftSettings: fuzzInstrumentation,
                linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])])
        ] : [])

// The `strata` command-line tool (its target is StrataTool: a module named `strata` would differ
// from `Strata` only in case).
// A fuzzing build makes only the harness: the tool's commands are instrumented there.
let strataToolProducts: [Product] = fuzzing ? [] : [.executable(name: "strata", targets: ["StrataTool"])]

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .plugin(name: "StrataModelPlugin", targets: ["StrataModelPlugin"]),
        .executable(name: "strata-codegen", targets: ["strata-codegen"]),
    ] + strataToolProducts + coreDataProducts,
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.1"..<"604.0.0"),
        // The web server of the example app. Its default traits (swift-configuration support,
        // full Foundation) are not needed, and leaving them out builds less.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        // Already in the graph through Hummingbird; named here for `TodoWeb`'s graceful shutdown.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        // The sync server's database (PostgreSQL, so that several instances share one) and the
        // JSON Web Tokens it takes as bearer tokens; jwt-kit brings swift-crypto, whose SHA-256
        // names assets by their content.
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit", exact: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
    ],
    targets: coreDataTargets + fuzzTargets + strataToolTargets + [
        .target(
            name: "Strata",
            dependencies: [
                "StrataMacros",
                // The sync client (NSPersistentCloudKitContainer) speaks the sync server's wire format.
                "StrataSyncProtocol",
                // zlib: Core Data keeps its compiled model in each store as raw DEFLATE.
                "CZlib",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for reading and binding columns by position on the hot paths.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: fuzzInstrumentation
        ),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .macro(
            name: "StrataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        .target(name: "StrataCodegen", dependencies: ["Strata"]),
        .testTarget(
            name: "StrataToolTests",
            // strata-codegen: `model generate` is compared with the plugin's generator.
            dependencies: ["Strata", "StrataTool", "strata-codegen", .product(name: "GRDB", package: "GRDB.swift")]
                + toolTestDependencies,
            // Model files and Apple-style sources the tests run the tool on, not test code.
            exclude: ["Fixtures"]
        ),
        // The wire format of the sync protocol, shared by the sync server and the client.
        .target(name: "StrataSyncProtocol", swiftSettings: fuzzInstrumentation),
        .testTarget(name: "StrataSyncProtocolTests", dependencies: ["StrataSyncProtocol"]),
        // The sync server (`strata-sync`): a library, so that tests and the load program start
        // servers in their own process, and the executable that configures it from flags and
        // the environment. Strata is needed for its predicate language (queries).
        .target(
            name: "StrataSyncServer",
            dependencies: [
                "Strata",
                "StrataSyncProtocol",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "strata-sync",
            dependencies: ["StrataSyncServer", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // 50 clients pushing through two instances (BENCHMARKS.md, "Sync").
        .executableTarget(
            name: "strata-sync-load",
            dependencies: ["Strata", "StrataSyncServer", "SyncTestSupport", "TodoKit"],
            path: "Benchmarks/StrataSyncLoad"
        ),
        // Issue 35's figures at scale: a zone of 1M records (indexed, prefix and streaming
        // queries) and 1,000 users × 10k records (push, pull, size per record) (BENCHMARKS.md, "Sync").
        .executableTarget(
            name: "strata-sync-scale",
            dependencies: [
                "Strata", "StrataSyncServer", "SyncTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/StrataSyncScale"
        ),
        // A throw-away PostgreSQL cluster per test process (or DATABASE_URL), a fresh
        // database per test, signed tokens and an HTTP client: for the server's tests, the
        // client's tests and the load program.
        .target(
            name: "SyncTestSupport",
            dependencies: [
                "StrataSyncServer",
                "StrataSyncProtocol",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/SyncTestSupport"
        ),
        // The sync simulation of issue 33 (seeded schedules of devices editing and syncing,
        // checked against an oracle of what must survive): its devices, the in-memory zone and
        // the schedules, shared by the run against the in-memory zone (StrataTests) and the run
        // against `strata-sync` processes on PostgreSQL (StrataSyncServerTests). It reads
        // Strata's sync metadata, hence `@testable import Strata`: it builds where the tests do
        // (debug), as StrataFuzzing does.
        .target(
            name: "SyncSimulationSupport",
            dependencies: ["Strata", "StrataSyncProtocol", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/SyncSimulationSupport"
        ),
        .testTarget(
            name: "StrataSyncServerTests",
            dependencies: [
                "Strata", "StrataSyncServer", "StrataSyncProtocol", "SyncTestSupport", "SyncSimulationSupport", "strata-sync",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        .executableTarget(name: "strata-codegen", dependencies: ["Strata", "StrataCodegen"]),
        .plugin(
            name: "StrataModelPlugin",
            capability: .buildTool(),
            dependencies: ["strata-codegen"]
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: [
                "Strata", "strata-history-writer", "StrataConcurrencyHarness", "strata-concurrency-writer",
                "SyncSimulationSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The concurrency harness (RELIABILITY.md): writers that record what each save knew, shared
        // by the tests and the second process that saves into the same store at the same time.
        .target(name: "StrataConcurrencyHarness", dependencies: ["Strata"], path: "Tests/StrataConcurrencyHarness"),
        .executableTarget(
            name: "strata-concurrency-writer", dependencies: ["Strata", "StrataConcurrencyHarness"],
            path: "Tests/StrataConcurrencyWriter"),
        // A second process for the persistent history tests: it saves into a store the test
        // watches (remote change notifications), or is killed in the middle of saves.
        .executableTarget(name: "strata-history-writer", dependencies: ["Strata"], path: "Tests/StrataHistoryWriter"),
        // The kill -9 harness's child (scripts/kill-harness, RELIABILITY.md): makes a store, runs
        // one operation for the script to kill, and checks what the kill left.
        .executableTarget(
            name: "strata-kill-child", dependencies: ["Strata", "StrataSyncProtocol"], path: "Tests/StrataKillChild"),
        .testTarget(
            name: "StrataMacrosTests",
            dependencies: [
                "StrataMacros",
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "StrataCodegenTests",
            dependencies: ["Strata", "StrataCodegen", "strata-codegen"]
        ),
        .testTarget(
            name: "StrataPluginTests",
            dependencies: ["Strata"],
            plugins: ["StrataModelPlugin"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
