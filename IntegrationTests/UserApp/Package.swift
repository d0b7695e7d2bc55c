// swift-tools-version: 6.1
import Foundation
import PackageDescription

// An app as a user of Strata writes it: a package that depends on the checkout by path and
// sees only Strata's products (`import CoreData`, `import CloudKit`, `import SwiftData`, the
// model plugin), with an executable target whose name is not a Swift identifier, a library
// whose public API names Core Data's classes and one of public `@Model` classes (in Swift 5
// language mode, as older apps are). `scripts/test-user-package` builds and runs it.
//
// A path dependency is named after its folder, which differs between clones.
let strata = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "UserApp",
    platforms: [.macOS(.v14)],
    dependencies: [.package(path: strata.path)],
    targets: [
        .target(
            name: "UserKit",
            dependencies: [.product(name: "CoreData", package: strata.lastPathComponent)]
        ),
        .target(
            name: "UserNotes",
            dependencies: [.product(name: "SwiftData", package: strata.lastPathComponent)],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "user-app",
            dependencies: [
                "UserKit",
                "UserNotes",
                .product(name: "SwiftData", package: strata.lastPathComponent),
                .product(name: "CoreData", package: strata.lastPathComponent),
                .product(name: "CloudKit", package: strata.lastPathComponent),
            ],
            plugins: [.plugin(name: "StrataModelPlugin", package: strata.lastPathComponent)]
        ),
    ]
)
