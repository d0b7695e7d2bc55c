/// What differs between the two compatibility targets, which compile the same files in
/// `Shared/`: this one in Swift 6 language mode, `CompatSwift5Tests` in Swift 5 mode.
enum CompatTarget {
    /// This target's model, `TodosSwift6.xcdatamodeld`, which Strata's plugin turns into
    /// `TodoEntity` and `TagEntity` and copies to the target's resources. Its class names
    /// carry the module (`CompatSwift6Tests.TodoEntity`), as Xcode writes them when an
    /// entity's module is set, so that they do not resolve to the other target's classes.
    static let modelName = "TodosSwift6"
}
