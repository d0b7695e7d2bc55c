// What `import SwiftData` alone must make visible, as Apple's SwiftData does through
// Foundation and Core Data: the undo manager of `ModelContext.undoManager` (Foundation has none
// on Linux; Strata's is the one Core Data code uses) and the Core Data model of
// `NSManagedObjectModel.makeManagedObjectModel(for:)`. Only these declarations, so that the
// rest of Core Data's names stay behind `import CoreData`.
@_exported import class Strata.NSManagedObjectModel

#if !canImport(Darwin)
    @_exported import class Strata.UndoManager
#endif
