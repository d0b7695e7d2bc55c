import Foundation
import Testing

@testable import Strata

@Suite("Xcode model bundles") struct XcodeModelBundleTests {
    /// The corpus folders that hold model versions, each laid out like an `.xcdatamodeld`.
    private static let corpusBundles: [String] = {
        guard TestCorpus.isAvailable,
            let names = try? FileManager.default.contentsOfDirectory(atPath: TestCorpus.models.path)
        else { return [] }
        return names.filter { name in
            let versions = try? FileManager.default.contentsOfDirectory(
                atPath: TestCorpus.models.appendingPathComponent(name).path)
            return versions?.contains { $0.hasSuffix(".xcdatamodel") } == true
        }.sorted()
    }()

    /// The current version a bundle's `.xccurrentversion` names, read here independently.
    private func markedCurrentVersion(of bundle: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: bundle.appendingPathComponent(".xccurrentversion").path),
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let name = plist["_XCCurrentVersionName"] as? String
        else { return nil }
        return String(name.dropLast(".xcdatamodel".count))
    }

    /// A copy of a corpus folder named as the bundle it is: `<name>.xcdatamodeld`.
    private func copyAsBundle(_ name: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("Model.xcdatamodeld")
        try FileManager.default.copyItem(at: TestCorpus.models.appendingPathComponent(name), to: url)
        return url
    }

    @Test(
        .enabled(if: TestCorpus.isAvailable, "the model corpus is absent"),
        arguments: corpusBundles)
    func everyCorpusVersionIsReachable(name: String) throws {
        let url = TestCorpus.models.appendingPathComponent(name)
        let versions = try FileManager.default.contentsOfDirectory(atPath: url.path)
            .filter { $0.hasSuffix(".xcdatamodel") }.map { String($0.dropLast(".xcdatamodel".count)) }.sorted()
        let marked = markedCurrentVersion(of: url)
        // One corpus bundle has an .xccurrentversion without _XCCurrentVersionName: the
        // first version is then current, as without a marker.
        let bundle = try XcodeModelBundle(url: url)
        #expect(bundle.versionNames == versions)
        #expect(bundle.currentVersionName == marked ?? versions.first)
        for version in versions {
            let model = try bundle.model(named: version)
            let data = try Data(contentsOf: bundle.contentsURL(ofVersion: version))
            #expect(model.isEqual(try NSManagedObjectModel.load(xml: data)))
        }
    }

    @Test(.enabled(if: TestCorpus.isAvailable, "the model corpus is absent"))
    func aBundleLoadsItsCurrentVersion() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try copyAsBundle("objcio__core-data__Moody", in: directory)
        let bundle = try XcodeModelBundle(url: url)
        #expect(bundle.versionNames.count == 6)
        #expect(bundle.currentVersionName == markedCurrentVersion(of: url))
        let current = try NSManagedObjectModel.load(contentsOf: url)
        #expect(current.isEqual(try bundle.currentModel()))
        let all = try bundle.allModels()
        #expect(all.count == 6)
        #expect(Set(all.values.map { $0.entityVersionHashesByName }).count > 1)
    }

    @Test func aDirectoryAndItsContentsFileLoadAlike() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = directory.appendingPathComponent("Books.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        let contents = version.appendingPathComponent("contents")
        try Data(XcodeModelFixtures.everything.utf8).write(to: contents)

        let fromDirectory = try NSManagedObjectModel.load(contentsOf: version)
        let fromFile = try NSManagedObjectModel.load(contentsOf: contents)
        #expect(fromDirectory.isEqual(fromFile))
        #expect(fromDirectory.entities.count == 4)
        #expect(NSManagedObjectModel(contentsOf: version)?.isEqual(fromFile) == true)
    }

    @Test func aBundleWithSeveralVersions() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Books.xcdatamodeld")
        let first = try XcodeModelFixtures.load(XcodeModelFixtures.single())
        try first.write(toXcodeModelAt: url)
        let second = try XcodeModelFixtures.load(XcodeModelFixtures.everything)
        try second.write(toXcodeModelAt: url.appendingPathComponent("Books 2.xcdatamodel"))

        var bundle = try XcodeModelBundle(url: url)
        #expect(bundle.versionNames == ["Books", "Books 2"])
        #expect(bundle.currentVersionName == "Books")
        #expect(try bundle.model(named: "Books").isEqual(first))
        #expect(try bundle.model(named: "Books 2").isEqual(second))

        let marker = try PropertyListSerialization.data(
            fromPropertyList: ["_XCCurrentVersionName": "Books 2.xcdatamodel"], format: .xml, options: 0)
        try marker.write(to: url.appendingPathComponent(".xccurrentversion"))
        bundle = try XcodeModelBundle(url: url)
        #expect(bundle.currentVersionName == "Books 2")
        #expect(try NSManagedObjectModel.load(contentsOf: url).isEqual(second))
    }

    @Test func aMissingVersionIsAnError() throws {
        let directory = try XcodeModelFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Books.xcdatamodeld")
        try XcodeModelFixtures.load(XcodeModelFixtures.single()).write(toXcodeModelAt: url)
        let bundle = try XcodeModelBundle(url: url)
        #expect(throws: ModelError(.missingModelVersion(name: "Books 9"), file: url)) {
            try bundle.model(named: "Books 9")
        }

        let marker = try PropertyListSerialization.data(
            fromPropertyList: ["_XCCurrentVersionName": "Gone.xcdatamodel"], format: .xml, options: 0)
        let markerURL = url.appendingPathComponent(".xccurrentversion")
        try marker.write(to: markerURL)
        #expect(throws: ModelError(.missingModelVersion(name: "Gone"), file: markerURL)) {
            try XcodeModelBundle(url: url)
        }
    }
}
