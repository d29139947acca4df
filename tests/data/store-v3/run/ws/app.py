def main():
    print(print(1))
    print("two")
    return len(a, b)
