// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

// `CoreData` re-exports Strata under Apple's module name. It is only offered where
// Apple's own framework is absent, so that it never shadows the real one; the example, which
// imports it, is built there too.
#if canImport(Darwin)
let coreDataProducts: [Product] = []
let coreDataTargets: [Target] = []
#else
let coreDataProducts: [Product] = [.library(name: "CoreData", targets: ["CoreData"])]
let coreDataTargets: [Target] = [
    .target(name: "CoreData", dependencies: ["Strata"]),
]
#endif

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .plugin(name: "StrataModelPlugin", targets: ["StrataModelPlugin"]),
        .executable(name: "strata-codegen", targets: ["strata-codegen"]),
    ] + coreDataProducts,
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.1"..<"604.0.0"),
    ],
    targets: coreDataTargets + [
        .target(
            name: "Strata",
            dependencies: [
                "StrataMacros",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .macro(
            name: "StrataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        .target(name: "StrataCodegen", dependencies: ["Strata"]),
        .executableTarget(name: "strata-codegen", dependencies: ["StrataCodegen"]),
        .plugin(
            name: "StrataModelPlugin",
            capability: .buildTool(),
            dependencies: ["strata-codegen"]
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: ["Strata", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "StrataMacrosTests",
            dependencies: [
                "StrataMacros",
                .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "StrataCodegenTests",
            dependencies: ["StrataCodegen"]
        ),
        .testTarget(
            name: "StrataPluginTests",
            dependencies: ["Strata"],
            plugins: ["StrataModelPlugin"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
