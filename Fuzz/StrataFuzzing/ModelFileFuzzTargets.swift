import Foundation

@testable import Strata

extension FuzzTarget {
    /// The bytes as an Xcode model's `contents` file. Loading gives a model or a `ModelError`;
    /// a model that loads must write back to XML that loads to an equal model and writes the
    /// same bytes again, and must survive compiling (the `.mom` archive) unchanged.
    public static let modelXML = FuzzTarget(name: "model-xml") { data throws(FuzzFinding) in
        let model: NSManagedObjectModel
        do throws(ModelError) {
            model = try NSManagedObjectModel.load(xml: data)
        } catch {
            try FuzzCheck.require(!error.message.isEmpty, "a ModelError without a message")
            return .refused
        }
        try ModelFileFuzzing.requireRoundTrips(model, from: "the XML model")
        return .taken
    }

    /// The bytes as a compiled model (`.mom`: a keyed archive in a binary property list), loaded
    /// from a file as apps load theirs, and as a store's `Z_MODELCACHE` (raw DEFLATE) when they
    /// inflate. A model that loads must round-trip like an XML one; the property list reader
    /// must read back what its writer writes from anything it reads.
    public static let compiledModel = FuzzTarget(name: "compiled-model") { data throws(FuzzFinding) in
        try ModelFileFuzzing.propertyListRoundTrip(data)
        if let inflated = RawDeflate.inflate(data) {
            let cached = NSManagedObjectModel()
            try? CompiledModelDecoder.read(inflated, file: nil, into: cached)
        }
        let scratch = try FuzzScratch()
        let url = try scratch.write(data, to: "Fuzz.mom")
        let model: NSManagedObjectModel
        do throws(ModelError) {
            model = try NSManagedObjectModel.load(contentsOf: url)
        } catch {
            try FuzzCheck.require(!error.message.isEmpty, "a ModelError without a message")
            return .refused
        }
        try ModelFileFuzzing.requireRoundTrips(model, from: "the compiled model")
        return .taken
    }
}

enum ModelFileFuzzing {
    /// XML → model → XML is a fixed point, and the compiled archive decodes to an equal model.
    static func requireRoundTrips(_ model: NSManagedObjectModel, from source: String) throws(FuzzFinding) {
        let written = model.xcodeModelContents()
        let again: NSManagedObjectModel
        do {
            again = try NSManagedObjectModel.load(xml: written)
        } catch {
            throw FuzzFinding("\(source) loads, but the XML written from it does not: \(error)")
        }
        try FuzzCheck.require(again.isEqual(model), "\(source) changes on the XML round trip")
        try FuzzCheck.require(again.xcodeModelContents() == written, "writing \(source) as XML is not a fixed point")
        let archive = CompiledModelEncoder.archive(model)
        let decoded = NSManagedObjectModel()
        do {
            try CompiledModelDecoder.read(archive, file: nil, into: decoded)
        } catch {
            throw FuzzFinding("\(source) loads, but its compiled archive does not decode: \(error)")
        }
        try FuzzCheck.require(
            decoded.entityVersionHashesByName == model.entityVersionHashesByName,
            "\(source) has other version hashes once compiled and decoded")
    }

    /// What the binary property list reader takes, its writer writes and it reads back equal.
    static func propertyListRoundTrip(_ data: Data) throws(FuzzFinding) {
        guard let value = try? BinaryPropertyList.read(data) else { return }
        let written = BinaryPropertyList.write(value)
        let again: PropertyListValue
        do {
            again = try BinaryPropertyList.read(written)
        } catch {
            throw FuzzFinding("a property list read from the input does not read back once written: \(error)")
        }
        try FuzzCheck.require(again == value, "a property list changes once written and read back")
    }
}
