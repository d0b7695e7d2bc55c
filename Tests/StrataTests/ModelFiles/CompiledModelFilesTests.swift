import Foundation
import Testing

@testable import Strata

/// Strata's `.momd` and `.mom` (model XML in Xcode's compiled layout), and Xcode's binary
/// ones, which give a typed error.
@Suite("Compiled model files")
struct CompiledModelFilesTests {
    private func bundle(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("Shop.xcdatamodeld")
        let first = XcodeModelFixtures.single()
        let second = XcodeModelFixtures.single(
            attribute: #"<attribute name="price" optional="YES" attributeType="Double" defaultValueString="0.0"/>"#)
        for (name, text) in [("Shop", first), ("Shop 2", second)] {
            let version = url.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: version.appendingPathComponent("contents"))
        }
        let marker =
            #"<plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Shop 2.xcdatamodel</string></dict></plist>"#
        try Data(marker.utf8).write(to: url.appendingPathComponent(".xccurrentversion"))
        return url
    }

    @Test func aMomdHoldsEveryVersionAndLoadsTheCurrentOne() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let momd = directory.appendingPathComponent("Shop.momd")
        try CompiledModelFiles.compile(try bundle(in: directory), to: momd)
        #expect(CompiledModelFiles.versionURLs(inMomd: momd).map(\.lastPathComponent) == ["Shop 2.mom", "Shop.mom"])
        let model = try #require(NSManagedObjectModel(contentsOf: momd))
        #expect(model.entitiesByName["Item"]?.attributesByName["price"] != nil)
        // Apps that read VersionInfo.plist themselves find the same version.
        let info =
            try PropertyListSerialization.propertyList(
                from: try Data(contentsOf: momd.appendingPathComponent("VersionInfo.plist")), format: nil) as? [String: Any]
        #expect(info?["NSManagedObjectModel_CurrentVersionName"] as? String == "Shop 2")
        let first = try #require(NSManagedObjectModel(contentsOf: momd.appendingPathComponent("Shop.mom")))
        #expect(first.entitiesByName["Item"]?.attributesByName["price"] == nil)
        // Every version is offered to the merge that matches a store.
        let metadata: [String: Any] = [NSStoreModelVersionHashesKey: first.entityVersionHashesByName]
        let bundleOfDirectory = try #require(Bundle(url: directory))
        let matching = NSManagedObjectModel.mergedModel(from: [bundleOfDirectory], forStoreMetadata: metadata)
        #expect(matching?.entitiesByName["Item"]?.attributesByName["price"] == nil)
        #expect(matching?.entitiesByName["Item"] != nil)
    }

    @Test func aLoneModelCompilesToAMomFile() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = try bundle(in: directory).appendingPathComponent("Shop 2.xcdatamodel")
        let mom = directory.appendingPathComponent("Shop.mom")
        try CompiledModelFiles.compile(version, to: mom)
        var isDirectory: ObjCBool = true
        #expect(FileManager.default.fileExists(atPath: mom.path, isDirectory: &isDirectory) && !isDirectory.boolValue)
        #expect(NSManagedObjectModel(contentsOf: mom)?.entitiesByName["Item"]?.attributesByName["price"] != nil)
    }

    @Test func aMomdNamingAMissingVersionIsRefused() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let momd = directory.appendingPathComponent("Model.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        let info = try PropertyListSerialization.data(
            fromPropertyList: ["NSManagedObjectModel_CurrentVersionName": "Gone"], format: .xml, options: 0)
        try info.write(to: momd.appendingPathComponent("VersionInfo.plist"))
        #expect(throws: ModelError(.missingModelVersion(name: "Gone"), file: momd.appendingPathComponent("VersionInfo.plist"))) {
            try NSManagedObjectModel.load(contentsOf: momd)
        }
    }
}
