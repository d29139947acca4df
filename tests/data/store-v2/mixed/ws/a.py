def f():
    return load_data(1)
