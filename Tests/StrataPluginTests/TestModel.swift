import Foundation
import Strata
import Testing

/// The test target's own `Model.xcdatamodeld`, whose classes the plugin generates.
enum TestModel {
    /// The model bundle beside this file.
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Model.xcdatamodeld")

    /// The model, loaded once.
    static let model: Result<NSManagedObjectModel, ModelError> = Result { () throws(ModelError) in
        try NSManagedObjectModel.load(contentsOf: url)
    }

    /// The entity with the given name.
    static func entity(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> NSEntityDescription {
        try #require(try model.get().entitiesByName[name], sourceLocation: sourceLocation)
    }

    /// A new object of the entity, in no context.
    static func make<Object: NSManagedObject>(_ type: Object.Type, entity name: String) throws -> Object {
        Object(entity: try entity(name), insertInto: nil)
    }
}
